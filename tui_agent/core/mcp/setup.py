"""Plugging MCP into an Agent: read the configs, make the manager a session service, wrap the registry
(and the model client, for the tool-search beta fallback). Nothing starts here: the front end decides
when (the app in the background after its first frame, headless before the first request)."""

from __future__ import annotations

from typing import Any, Callable

from ..permissions.settings import find_project_root
from ..trust import reads
from .approval import ProjectApprovals
from .config import load_mcp_configs
from .deferred import ToolSearchSettings
from .manager import McpManager
from .registry import BetaFallbackModel, McpToolRegistry

SERVICE = "mcp"


def attach_mcp(agent: Any, settings: Any, on_notice: Callable[[str, str], None] | None = None) -> McpManager:
    notice = on_notice or (lambda level, text: None)
    cwd = settings.cwd.resolve()
    project_dir = find_project_root(cwd)

    sources = getattr(settings, "setting_sources", None)

    def load() -> Any:
        return load_mcp_configs(cwd, project_dir=project_dir, mcp_config=settings.mcp_config, strict=settings.strict_mcp_config,
                                project=reads(sources, "project"))

    approvals = ProjectApprovals(project_dir, settings_file=settings.settings_file,
                                 settings_json=getattr(settings, "settings_json", None), setting_sources=sources)
    for problem in approvals.problems:
        notice("warning", problem)
    manager = McpManager(
        load(),
        approvals,
        cwd=cwd,
        log_dir=agent.session.dir,
        emit=lambda event: agent.emit(event),  # read at call time: the front end may swap agent.emit
        notice=notice,
        reload_configs=load,
    )
    agent.context.services[SERVICE] = manager
    search = ToolSearchSettings.from_env(settings.base_url)
    agent.registry = McpToolRegistry(agent.registry, manager, agent.policy, search)
    agent.model = BetaFallbackModel(agent.model, search, notice)
    return manager


def mcp_manager(agent: Any) -> McpManager | None:
    return agent.context.services.get(SERVICE) if agent is not None else None
