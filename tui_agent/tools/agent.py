"""The Agent tool (alias Task): hand a task to a subagent with its own conversation and tools.

Input and description as Claude Code 2.1 sends them. The subagent's final text is the result,
followed by the usage block Claude Code appends (`<usage>subagent_tokens: N ...</usage>`); its own
tool calls never enter the parent's history. The call needs no permission itself (its tools ask);
several Agent calls of one response run at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from ..core.agents.definitions import GENERAL_PURPOSE, AgentCatalog
from .base import Tool, ToolContext, ToolError, ToolInput, ToolOutput

DESCRIPTION_HEAD = """Launch a new agent to handle complex, multi-step tasks. Each agent type has specific capabilities and tools available to it.

{listing}

When using the Agent tool, specify a subagent_type parameter to select which agent type to use. If omitted, the general-purpose agent is used.

## When to use

Reach for this when the task matches an available agent type, when you have independent work to run in parallel, or when answering would mean reading across several files — delegate it and you keep the conclusion, not the file dumps. For a single-fact lookup where you already know the file, symbol, or value, search directly. Once you've delegated a search, don't also run it yourself — wait for the result.

- The agent's final message is returned to you as the tool result; it is not shown to the user — relay what matters.
- A new Agent call starts fresh: include everything the agent needs to know in the prompt.
- When you launch multiple agents for independent work, send them in a single message with multiple tool uses so they run concurrently."""

NOT_IN_BACKGROUND = (
    "Note: run_in_background is not supported by tui-agent; the agent ran in the foreground and its "
    "result is above."
)


class AgentInput(ToolInput):
    description: str = Field(description="A short (3-5 word) description of the task")
    prompt: str = Field(description="The task for the agent to perform")
    subagent_type: str = Field(GENERAL_PURPOSE, description="The type of specialized agent to use for this task")
    model: Literal["sonnet", "opus", "haiku"] | None = Field(
        None,
        description=(
            "Optional model override for this agent. Takes precedence over the agent definition's model "
            "frontmatter. If omitted, uses the agent definition's model, or inherits from the parent."
        ),
    )
    run_in_background: bool | None = Field(
        None, description="Set to true to run this agent in the background. You will be notified when it completes."
    )
    isolation: Literal["worktree", "remote"] | None = Field(
        None,
        description=(
            'Isolation mode. "worktree" creates a temporary git worktree so the agent works on an isolated copy '
            'of the repo. "remote" launches the agent in a remote cloud environment.'
        ),
    )


def usage_block(agent_id: str, tokens: int, tool_uses: int, duration_ms: int) -> str:
    """What Claude Code appends after a subagent's report."""
    return f"agentId: {agent_id}\n<usage>subagent_tokens: {tokens}\ntool_uses: {tool_uses}\nduration_ms: {duration_ms}</usage>"


class AgentTool(Tool[AgentInput]):
    name = "Agent"
    aliases = ("Task",)
    description = DESCRIPTION_HEAD
    Input = AgentInput

    def __init__(self, catalog: AgentCatalog | None = None) -> None:
        self.catalog = catalog

    def _catalog(self) -> AgentCatalog:
        if self.catalog is None:
            self.catalog = AgentCatalog(Path.cwd())
        return self.catalog

    def api_definition(self) -> dict[str, Any]:
        # The listing follows the definition files (re-read when they change).
        text = DESCRIPTION_HEAD.format(listing=self._catalog().listing())
        return {"name": self.name, "description": text, "input_schema": self.input_schema()}

    def is_read_only(self, input: AgentInput) -> bool:
        return True  # the call itself changes nothing; its tools ask for themselves

    def is_concurrency_safe(self, input: AgentInput) -> bool:
        return True

    def summarize(self, input: AgentInput) -> str:
        return f"{input.subagent_type}: {input.description}"

    async def validate_input(self, input: AgentInput, ctx: ToolContext) -> str | None:
        if ctx.services.get("subagents") is None:
            return "Subagents are not available in this session."
        if self._catalog().find(input.subagent_type) is None:
            names = ", ".join(d.name for d in self._catalog().definitions())
            return f"Agent type '{input.subagent_type}' not found. Available agents: {names}"
        if input.isolation is not None:
            return (
                f'isolation "{input.isolation}" is not supported by tui-agent. Call Agent again without '
                "`isolation` to run the agent in the shared working folder."
            )
        return None

    async def call(self, input: AgentInput, ctx: ToolContext) -> ToolOutput:
        from ..core.agents.runner import cut

        host = ctx.services.get("subagents")
        definition = self._catalog().find(input.subagent_type)
        if host is None or definition is None:
            raise ToolError("Subagents are not available in this session.")
        outcome = await host.run(definition, description=input.description, prompt=input.prompt, model=input.model, ctx=ctx)
        text = cut(outcome.text) or "(the agent finished without a final message)"
        if outcome.is_error:
            text = f"The agent stopped early ({outcome.reason}): {outcome.detail}\n\n{text}"
        blocks = [
            {"type": "text", "text": text},
            {"type": "text", "text": usage_block(outcome.agent_id, outcome.total_tokens, outcome.tool_uses, outcome.duration_ms)},
        ]
        if input.run_in_background:
            blocks.append({"type": "text", "text": NOT_IN_BACKGROUND})
        data = {
            "status": "completed" if not outcome.is_error else "error",
            "agentId": outcome.agent_id,
            "agentType": definition.name,
            "prompt": input.prompt,
            "totalTokens": outcome.total_tokens,
            "totalToolUseCount": outcome.tool_uses,
            "totalDurationMs": outcome.duration_ms,
            "content": [{"type": "text", "text": text}],
        }
        return ToolOutput(blocks, is_error=outcome.is_error, data=data)
