"""The built-in set: Claude Code's names, order, parameter names, and documented schemas."""

from __future__ import annotations

from tui_agent.tools.builtin import all_tools
from tui_agent.tools.registry import ToolRegistry

EXPECTED_PARAMETERS = {
    "Agent": {"description", "prompt", "subagent_type", "model", "run_in_background", "isolation"},
    "Bash": {"command", "timeout", "description", "run_in_background", "dangerouslyDisableSandbox"},
    "Glob": {"pattern", "path"},
    "Grep": {"pattern", "path", "glob", "type", "output_mode", "-i", "-n", "-A", "-B", "-C", "multiline", "head_limit"},
    "ExitPlanMode": {"plan", "allowedPrompts"},  # tools/plan_mode.py
    "Read": {"file_path", "offset", "limit"},
    "Edit": {"file_path", "old_string", "new_string", "replace_all"},
    "Write": {"file_path", "content"},
    "NotebookEdit": {"notebook_path", "cell_id", "new_source", "cell_type", "edit_mode"},  # tools/notebook_edit.py
    "TodoWrite": {"todos"},
    "BashOutput": {"bash_id", "filter"},
    "KillShell": {"shell_id"},
    "AskUserQuestion": {"questions", "answers", "annotations", "metadata"},  # tools/ask_user_question.py
    "WebFetch": {"url", "prompt"},
    "Skill": {"skill", "args"},  # tools/skill.py: offered where skills or commands exist
    "EnterPlanMode": set(),
}


def test_tools_come_in_claude_codes_order() -> None:
    assert [t.name for t in all_tools()] == list(EXPECTED_PARAMETERS)


def test_parameter_names_match_claude_code() -> None:
    for tool in all_tools():
        assert set(tool.input_schema()["properties"]) == EXPECTED_PARAMETERS[tool.name], tool.name


def test_every_parameter_and_tool_is_described() -> None:
    for tool in all_tools():
        assert len(tool.description) > 100, tool.name
        for name, prop in tool.input_schema()["properties"].items():
            assert prop.get("description"), f"{tool.name}.{name}"


def test_schemas_forbid_unknown_parameters() -> None:
    for tool in all_tools():
        assert tool.input_schema()["additionalProperties"] is False, tool.name


def test_registry_finds_every_tool() -> None:
    registry = ToolRegistry(all_tools())
    for name in EXPECTED_PARAMETERS.keys() - {"Skill"}:  # Skill: only where skills exist (tests/core/test_skills.py)
        found = registry.find(name)
        assert found is not None and found.name == name
