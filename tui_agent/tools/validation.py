"""Turn a pydantic ValidationError into lines a model can learn from (DESIGN §1.5).

One line per problem, in Claude Code's words, so the model fixes its call on the next try:
  The required parameter `file_path` is missing
  An unexpected parameter `content` was provided
  The parameter `limit` type is expected as `number` but provided as `string`
Types are named as JavaScript names a JSON value's type (`number`, `string`, `boolean`, `array`, `object`,
`null`), as Claude Code and the seed do: a JSON integer is a `number`.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

_EXPECTED_BY_ERROR = {
    "string_type": "string",
    "int_type": "number",
    "int_parsing": "number",
    "float_type": "number",
    "float_parsing": "number",
    "bool_type": "boolean",
    "bool_parsing": "boolean",
    "list_type": "array",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
}


def json_type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif out:
            out += f".{part}"
        else:
            out = str(part)
    return out


def format_validation_error(tool_name: str, error: ValidationError) -> str:
    lines: list[str] = []
    for issue in error.errors(include_url=False):
        kind = issue["type"]
        # Union members each report; keep the location, drop pydantic's member tag.
        loc = tuple(p for p in issue["loc"] if not (isinstance(p, str) and p.startswith(("function-", "tagged-union"))))
        loc = tuple(p for p in loc if p not in {"str", "int", "float", "bool", "list[str]", "none", "literal"} or p == loc[0])
        name = _path(loc)
        if kind == "missing":
            line = f"The required parameter `{name}` is missing"
        elif kind == "extra_forbidden":
            line = f"An unexpected parameter `{name}` was provided"
        elif kind in _EXPECTED_BY_ERROR:
            line = (
                f"The parameter `{name}` type is expected as `{_EXPECTED_BY_ERROR[kind]}` "
                f"but provided as `{json_type_name(issue.get('input'))}`"
            )
        else:
            line = f"The parameter `{name}` is invalid: {issue['msg']}"
        if line not in lines:
            lines.append(line)
    if not lines:
        lines.append(str(error))
    return f"{tool_name} failed due to the following issue{'s' if len(lines) > 1 else ''}:\n" + "\n".join(lines)


def tool_use_error(text: str) -> str:
    return f"<tool_use_error>{text}</tool_use_error>"
