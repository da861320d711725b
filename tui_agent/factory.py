"""Builds an Agent from settings: the one place the CLI, the TUI and the tests assemble the core."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from .config import AgentSettings
from .core.events import Event, Notice
from .core.loop import Agent, LoopOptions
from .core.model import ModelClient, ModelConfig
from .core.model_limits import OutputLimits, explicit_max_output
from .core.permission_types import PERMISSION_MODES, AskHandler, PermissionPolicy
from .core.session import OpenedSession, open_session
from .core.session.resume import BusyPolicy
from .core.access import ReadGate
from .core.session.memory_context import ProjectMemory
from .core.thinking import ThinkingChoice, ThinkingError, ThinkingState, choose
from .core.user_settings import read_setting
from .core.hook_events import install_hook_events
from .core.tool_env import env_filter_source
from .tools.base import Workspace
from .tools.env_filter import SERVICE_KEY as ENV_FILTER_KEY
from .tools.registry import ToolRegistry, default_tools

DEFAULT_SMALL_FAST_MODEL = "claude-haiku-4-5"


def build_model_client(settings: AgentSettings, scripted: Any = None) -> tuple[ModelClient, bool]:
    """The model client, and whether it is the demo. `scripted` (a ScriptedModel) is plugged in
    as an httpx2 transport behind the real SDK."""
    demo = False
    if scripted is None and (settings.demo or not settings.has_endpoint):
        from .providers.demo import demo_model

        scripted = demo_model(settings.cwd)
        demo = True
    config = ModelConfig(
        model=scripted.model if scripted is not None else settings.model,
        api_key=settings.api_key if scripted is None else "scripted",
        base_url=settings.base_url if scripted is None else "http://scripted.invalid",
        max_retries=settings.max_retries,
        idle_timeout=settings.stream_idle_timeout,
    )
    factory = scripted.http_client if scripted is not None else None
    return ModelClient(config, http_client_factory=factory), demo


def build_policy(settings: AgentSettings, session_id: str, on_notice: Callable[[str, str], None] | None) -> PermissionPolicy:
    from .core.permissions import PermissionEngine

    return PermissionEngine(
        settings.cwd.resolve(),
        mode=settings.permission_mode,
        settings_file=settings.settings_file,
        settings_json=settings.settings_json,
        setting_sources=settings.setting_sources,
        allowed_tools=list(settings.allowed_tools),
        disallowed_tools=list(settings.disallowed_tools),
        on_notice=on_notice,
        session_id=session_id,
    )


def build_agent(
    settings: AgentSettings,
    *,
    emit: Callable[[Event], None] = lambda e: None,
    ask: AskHandler | None = None,
    on_notice: Callable[[str, str], None] | None = None,
    scripted: Any = None,
    tools: list[Any] | None = None,
    clock: Callable[[], float] | None = None,
    opened: OpenedSession | None = None,
) -> Agent:
    """`tools` replaces the built-in set (tests, embedding); `scripted` replaces the API. `opened` is the
    session open_session() chose (resume, continue, fork); by default the settings' flags choose it."""
    if opened is None:
        opened = open_settings_session(settings)
    settings = settings_for_resumed(settings, opened)
    session = opened.session
    policy = build_policy(settings, session.id, on_notice)
    session.mode_of = lambda: str(getattr(policy, "mode", "default"))
    # --add-dir folders and the settings' permissions.additionalDirectories are both tool territory.
    extra = [*settings.add_dirs, *getattr(policy, "additional_directories", [])]
    workspace = Workspace.at(settings.cwd, tuple(d for d in extra if Path(d).is_dir()))
    model, demo = build_model_client(settings, scripted)
    registry = ToolRegistry(tools if tools is not None else [*default_tools(), web_search_tool(settings, scripted, demo, policy)])
    if settings.tools is not None:
        registry = registry.restricted(settings.tools)
    if ask is None:  # `-p`: no one to answer a question, so tools that only ask are not offered
        registry = registry.restricted(exclude=[t.name for t in registry.tools if t.asks_user])
    options = LoopOptions(
        max_turns=settings.max_turns,
        max_budget_usd=settings.max_budget_usd,
        system_prompt=settings.system_prompt,
        append_system_prompt=settings.append_system_prompt,
        max_concurrency=settings.max_concurrency,
        message_budget=settings.message_budget,
    )
    memory = None
    if settings.memory:
        memory = ProjectMemory(settings.cwd, on_notice=on_notice or (lambda level, text: emit(Notice.of(level, text))),  # type: ignore[arg-type]
                               gate=ReadGate(workspace, policy), project_dir=getattr(policy, "project_dir", None),
                               sources=settings.setting_sources)
        memory.load()
    agent = Agent(
        model=model,
        registry=registry,
        policy=policy,
        session=session,
        workspace=workspace,
        options=options,
        ask=ask,
        emit=emit,
        demo=demo,
        memory=memory,
        **({"clock": clock} if clock is not None else {}),
    )
    if tools is None:  # the built-in set: MCP servers' tools join it (tests passing their own tools opt out)
        from .core.mcp import attach_mcp

        attach_mcp(agent, settings, on_notice)
    # Tool processes get the environment without the credentials the settings of the moment withhold.
    agent.context.services[ENV_FILTER_KEY] = env_filter_source(policy)
    from .core.sandbox.install import install_sandbox  # Bash and background shells inside bwrap when enabled

    install_sandbox(agent, policy, on_notice or (lambda level, text: emit(Notice.of(level, text))))  # type: ignore[arg-type]
    small = small_model_name(settings, demo or scripted is not None)
    if small:  # WebFetch answers with it; without one it returns the page's Markdown
        from .tools.web_fetch import SmallModel

        agent.context.services["small_model"] = SmallModel(model, small)
    from .core.checkpoints import install_checkpoints  # before any subagent: they share the parent's store

    install_checkpoints(agent)
    from .core.agents.runner import install as install_subagents

    install_subagents(agent)
    # Every hook event (settings command hooks; a program's callbacks join in protocol/session.py), in every front end.
    install_hook_events(agent, on_notice or (lambda level, text: emit(Notice.of(level, text))))  # type: ignore[arg-type]
    agent.history = list(opened.history)
    from .core.session.todos import last_todo_list  # a resumed session goes on from its todo list
    from .tools.todo import kept_list

    resumed_todos = last_todo_list(agent.history)
    if resumed_todos:
        agent.context.services["todos"] = kept_list(resumed_todos)
    tell = on_notice or (lambda level, text: emit(Notice.of(level, text)))  # type: ignore[arg-type]
    install_output_limits(model, policy, None if demo else tell)
    agent.thinking = ThinkingState(thinking_choice(settings, policy, tell))
    for level, text in opened.notes:
        tell(level, text)
    return agent


def install_output_limits(model: ModelClient, policy: Any, tell: Callable[[str, str], None] | None) -> None:
    """The session's output limits (core/model_limits.py): the user's CLAUDE_CODE_MAX_OUTPUT_TOKENS is
    what requests ask for (as in Claude Code) and, with settings `contextWindows`, the figure for a model
    the table does not know; a model without one is named once (not for the demo)."""
    read = lambda key, default=None: read_setting(policy, key, default)  # noqa: E731
    explicit = explicit_max_output(read)
    if explicit:
        model.config.max_tokens = explicit
    notify = None if tell is None else (lambda text: tell("info", text))
    model.limits = OutputLimits(explicit=explicit, overrides=read("contextWindows", None), notify=notify)


def thinking_choice(settings: AgentSettings, policy: Any, tell: Callable[[str, str], None]) -> ThinkingChoice:
    """Extended thinking as the flags, MAX_THINKING_TOKENS and settings `alwaysThinkingEnabled` ask
    (a bad value is named and thinking stays off)."""
    always = read_setting(policy, "alwaysThinkingEnabled")
    try:
        return choose(
            thinking=settings.thinking,
            max_thinking_tokens=settings.max_thinking_tokens,
            display=settings.thinking_display,
            always_enabled=always if isinstance(always, bool) else None,
        )
    except ThinkingError as exc:
        tell("warning", f"Extended thinking is off: {exc}")
        return ThinkingChoice()


def web_search_tool(settings: AgentSettings, scripted: Any, demo: bool, policy: Any = None) -> Any:
    """The API's server-side web search, enabled only where the endpoint supports it, offered only while
    no deny or ask rule names WebSearch (it can't be asked about once the request is sent)."""
    from .core.permissions.server_tools import server_tool_offered
    from .tools.web_search import WebSearchTool, supported

    offered = None if policy is None else (lambda: server_tool_offered(policy, WebSearchTool.name))
    return WebSearchTool(enabled=not demo and supported(settings.base_url, scripted), offered=offered)


def small_model_name(settings: AgentSettings, scripted: bool) -> str | None:
    """The small fast model: ANTHROPIC_SMALL_FAST_MODEL / ANTHROPIC_DEFAULT_HAIKU_MODEL, else Haiku on a
    real endpoint; none for a scripted model unless named."""
    import os

    named = os.environ.get("ANTHROPIC_SMALL_FAST_MODEL") or os.environ.get("ANTHROPIC_DEFAULT_HAIKU_MODEL")
    if named:
        return named
    return None if scripted else DEFAULT_SMALL_FAST_MODEL


def open_settings_session(settings: AgentSettings, busy: BusyPolicy = "fork") -> OpenedSession:
    """The session the flags ask for (raises NoConversationFound or ValueError with Claude Code's words;
    SessionBusy with busy="raise" when another process is writing it)."""
    return open_session(
        settings.cwd.resolve(),
        resume=settings.resume or None,
        continue_=settings.continue_session,
        fork=settings.fork_session,
        session_id=settings.session_id,
        name=settings.session_name,
        busy=busy,
    )


def settings_for_resumed(settings: AgentSettings, opened: OpenedSession) -> AgentSettings:
    """A resumed session brings back its model (unless one was chosen) and its permission mode (unless
    one was given; never bypassPermissions or plan, see open_session)."""
    update: dict[str, Any] = {}
    conv = opened.conversation
    if conv is not None and conv.model and not settings.model_pinned:
        update["model"] = conv.model
    if opened.permission_mode in PERMISSION_MODES and settings.permission_mode is None:
        update["permission_mode"] = opened.permission_mode
    return settings.model_copy(update=update) if update else settings
