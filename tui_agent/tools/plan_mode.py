"""EnterPlanMode and ExitPlanMode (Claude Code's names, schemas and tool_result texts).

Both are questions to the person (`asks_user`): EnterPlanMode asks to switch to plan mode, ExitPlanMode
shows the plan for approval. The app's dialog (ui/screens/plan.py) switches the mode the person chose;
an SDK program does it with its answer's `setMode`. The tools switch it too when nobody did (a program
that only said allow): into plan, or out of it to default. They reach the permission policy through
`ToolContext.services[POLICY_SERVICE]` (set by the loop), never by importing the core.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from .base import Tool, ToolContext, ToolInput, ToolOutput

POLICY_SERVICE = "permission_policy"
"""ToolContext.services: the session's permission policy (its `mode` is what plan mode switches)."""
EXIT_ASKED = "plan_exit_asked"
"""ToolContext.services: the plan an ExitPlanMode call validated in plan mode, until it runs. A program may
switch the mode (`setMode`) and edit the plan in one answer: the edited input is checked again after the
switch, and must not be refused as "not in plan mode"."""
AGENT_MARKER = "hook_agent"  # core/hook_events.AGENT_SERVICE: present in a subagent's services

EXIT_DESCRIPTION = """Use this tool when you are in plan mode and have finished presenting your plan and are ready to code. This will prompt the user to exit plan mode.
IMPORTANT: Only use this tool when the task requires planning the implementation steps of a task that requires writing code. For research tasks where you're gathering information, searching files, reading files or in general trying to understand the codebase - do NOT use this tool.

## Handling Ambiguity in Plans
Before using this tool, ensure your plan is clear and unambiguous. If there are multiple valid approaches or unclear requirements:
1. Use the AskUserQuestion tool to clarify with the user
2. Ask about specific implementation choices (e.g., architectural patterns, which library to use)
3. Clarify any assumptions that could affect the implementation
4. Only proceed with ExitPlanMode after resolving ambiguities

## Examples

1. Initial task: "Search for and understand the implementation of vim mode in the codebase" - Do not use the exit plan mode tool because you are not planning the implementation steps of a task.
2. Initial task: "Help me implement yank mode for vim" - Use the exit plan mode tool after you have finished planning the implementation steps of the task.
3. Initial task: "Add a new feature to handle user authentication" - If unsure about auth method (OAuth, JWT, etc.), use AskUserQuestion first, then use exit plan mode tool after clarifying the approach.
"""

ENTER_DESCRIPTION = """Use this tool proactively when you're about to start a non-trivial implementation task. Getting user sign-off on your approach before writing code prevents wasted effort and ensures alignment. This tool transitions you into plan mode where you can explore the codebase and design an implementation approach for user approval.

## When to Use This Tool

**Prefer using EnterPlanMode** for implementation tasks unless they're simple. Use it when ANY of these conditions apply:

1. **New Feature Implementation**: Adding meaningful new functionality
   - Example: "Add a logout button" - where should it go? What should happen on click?
   - Example: "Add form validation" - what rules? What error messages?

2. **Multiple Valid Approaches**: The task can be solved in several different ways
   - Example: "Add caching to the API" - could use Redis, in-memory, file-based, etc.
   - Example: "Improve performance" - many optimization strategies possible

3. **Code Modifications**: Changes that affect existing behavior or structure
   - Example: "Update the login flow" - what exactly should change?
   - Example: "Refactor this component" - what's the target architecture?

4. **Architectural Decisions**: The task requires choosing between patterns or technologies
   - Example: "Add real-time updates" - WebSockets vs SSE vs polling
   - Example: "Implement state management" - Redux vs Context vs custom solution

5. **Multi-File Changes**: The task will likely touch more than 2-3 files
   - Example: "Refactor the authentication system"
   - Example: "Add a new API endpoint with tests"

6. **Unclear Requirements**: You need to explore before understanding the full scope
   - Example: "Make the app faster" - need to profile and identify bottlenecks
   - Example: "Fix the bug in checkout" - need to investigate root cause

7. **User Preferences Matter**: The implementation could reasonably go multiple ways
   - If you would use AskUserQuestion to clarify the approach, use EnterPlanMode instead
   - Plan mode lets you explore first, then present options with context

## When NOT to Use This Tool

Only skip EnterPlanMode for simple tasks:
- Single-line or few-line fixes (typos, obvious bugs, small tweaks)
- Adding a single function with clear requirements
- Tasks where the user has given very specific, detailed instructions
- Pure research/exploration tasks (use the Agent tool with explore agent instead)

## What Happens in Plan Mode

In plan mode, you'll:
1. Thoroughly explore the codebase using Glob, Grep, and Read
2. Understand existing patterns and architecture
3. Design an implementation approach
4. Present your plan to the user for approval
5. Use AskUserQuestion if you need to clarify approaches
6. Exit plan mode with ExitPlanMode when ready to implement

## Examples

### GOOD - Use EnterPlanMode:
User: "Add user authentication to the app"
- Requires architectural decisions (session vs JWT, where to store tokens, middleware structure)

User: "Optimize the database queries"
- Multiple approaches possible, need to profile first, significant impact

User: "Implement dark mode"
- Architectural decision on theme system, affects many components

User: "Add a delete button to the user profile"
- Seems simple but involves: where to place it, confirmation dialog, API call, error handling, state updates

User: "Update the error handling in the API"
- Affects multiple files, user should approve the approach

### BAD - Don't use EnterPlanMode:
User: "Fix the typo in the README"
- Straightforward, no planning needed

User: "Add a console.log to debug this function"
- Simple, obvious implementation

User: "What files handle routing?"
- Research task, not implementation planning

## Important Notes

- This tool REQUIRES user approval - they must consent to entering plan mode
- If unsure whether to use it, err on the side of planning - it's better to get alignment upfront than to redo work
- Users appreciate being consulted before significant changes are made to their codebase
"""

# tool_result texts, as Claude Code sends them.
APPROVED = "User has approved your plan. You can now start coding. Start with updating your todo list if applicable"
APPROVED_EMPTY = "User has approved exiting plan mode. You can now proceed."
EDITED_PLAN_HEADER = "## Approved Plan (edited by user):"
NOT_IN_PLAN_MODE = (
    "You are not in plan mode. To enter plan mode, call the EnterPlanMode tool first. "
    "If your plan was already approved, continue with implementation."
)
ENTERED = "Entered plan mode. You should now focus on exploring the codebase and designing an implementation approach."
ENTERED_RESULT = (
    ENTERED
    + """

In plan mode, you should:
1. Thoroughly explore the codebase to understand existing patterns
2. Identify similar features and architectural approaches
3. Consider multiple approaches and their trade-offs
4. Use AskUserQuestion if you need to clarify the approach
5. Design a concrete implementation strategy
6. When ready, use ExitPlanMode to present your plan for approval

Remember: DO NOT write or edit any files yet. This is a read-only exploration and planning phase."""
)
NOT_FOR_AGENTS = "{tool} tool cannot be used in agent contexts"


def _policy(ctx: ToolContext) -> Any:
    return ctx.services.get(POLICY_SERVICE)


def current_mode(ctx: ToolContext) -> str | None:
    """The session's permission mode, or None when no policy is reachable (a bare tool in a test)."""
    mode = getattr(_policy(ctx), "mode", None)
    return str(mode) if mode is not None else None


def _set_mode(ctx: ToolContext, mode: str) -> None:
    policy = _policy(ctx)
    if policy is not None:
        policy.mode = mode


class AllowedPrompt(ToolInput):
    tool: Literal["Bash"] = Field(description="The tool this prompt applies to")
    prompt: str = Field(description='Semantic description of the action, e.g. "run tests", "install dependencies"')


class ExitPlanModeInput(ToolInput):
    # The `plan` parameter of the versions we mirror; `allowedPrompts` (newer versions) is accepted and shown.
    plan: str = Field(
        description="The plan you came up with, that you want to run by the user for approval. Supports markdown. "
        "The plan should be pretty concise."
    )
    allowedPrompts: list[AllowedPrompt] | None = Field(
        None,
        description="Prompt-based permissions needed to implement the plan. These describe categories of actions "
        "rather than specific commands.",
    )


class EnterPlanModeInput(ToolInput):
    pass


class ExitPlanModeTool(Tool[ExitPlanModeInput]):
    name = "ExitPlanMode"
    aliases = ("ExitPlanModeV2",)
    description: ClassVar[str] = EXIT_DESCRIPTION
    Input = ExitPlanModeInput
    asks_user = True

    def is_concurrency_safe(self, input: ExitPlanModeInput) -> bool:
        return True

    def summarize(self, input: ExitPlanModeInput) -> str:
        """The plan's first line (its title, usually), for the cell and the lanes."""
        first = next((line.strip().lstrip("#").strip() for line in input.plan.splitlines() if line.strip()), "")
        return first[:200]

    async def validate_input(self, input: ExitPlanModeInput, ctx: ToolContext) -> str | None:
        if AGENT_MARKER in ctx.services:
            return NOT_FOR_AGENTS.format(tool=self.name)
        mode = current_mode(ctx)
        if mode is None or mode == "plan":
            ctx.services[EXIT_ASKED] = input.plan
            return None
        if EXIT_ASKED in ctx.services:  # checked again after the answer switched the mode (see EXIT_ASKED)
            return None
        return NOT_IN_PLAN_MODE

    async def call(self, input: ExitPlanModeInput, ctx: ToolContext) -> ToolOutput:
        asked = ctx.services.pop(EXIT_ASKED, None)
        if current_mode(ctx) == "plan":  # allowed without a mode chosen (a program's plain allow): default
            _set_mode(ctx, "default")
        plan = input.plan
        edited = asked is not None and asked != plan
        if not plan.strip():
            text = APPROVED_EMPTY
        elif edited:
            text = f"{APPROVED}\n\n{EDITED_PLAN_HEADER}\n{plan}"
        else:
            text = APPROVED
        return ToolOutput(text, data={"type": "plan", "plan": plan, "edited": edited, "mode": current_mode(ctx)})


class EnterPlanModeTool(Tool[EnterPlanModeInput]):
    name = "EnterPlanMode"
    description: ClassVar[str] = ENTER_DESCRIPTION
    Input = EnterPlanModeInput
    asks_user = True

    def is_read_only(self, input: EnterPlanModeInput) -> bool:
        return True

    def summarize(self, input: EnterPlanModeInput) -> str:
        return ""

    async def validate_input(self, input: EnterPlanModeInput, ctx: ToolContext) -> str | None:
        if AGENT_MARKER in ctx.services:
            return NOT_FOR_AGENTS.format(tool=self.name)
        return None

    async def call(self, input: EnterPlanModeInput, ctx: ToolContext) -> ToolOutput:
        _set_mode(ctx, "plan")  # the dialog did already; a program's plain allow did not
        ctx.services.pop(EXIT_ASKED, None)
        return ToolOutput(ENTERED_RESULT, data={"type": "plan_mode_entered", "message": ENTERED})
