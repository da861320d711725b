"""Validation errors name types as JavaScript names a JSON value's type (`number`, `string`, `boolean`,
`array`, `object`, `null`), in Claude Code's and the seed's words (issue 10, point 8)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from tui_agent.tools.base import ToolInput
from tui_agent.tools.validation import format_validation_error


class Sample(ToolInput):
    limit: int = 1
    ratio: float = 1.0
    name: str = ""
    flag: bool = False
    items: list[str] = []
    options: dict[str, Any] = {}


def _message(**fields: Any) -> str:
    with pytest.raises(ValidationError) as caught:
        Sample.model_validate(fields)
    return format_validation_error("Sample", caught.value)


@pytest.mark.parametrize(
    "field, value, expected, provided",
    [
        ("limit", "5", "number", "string"),
        ("limit", True, "number", "boolean"),
        ("limit", None, "number", "null"),
        ("limit", [1], "number", "array"),
        ("ratio", "0.5", "number", "string"),
        ("name", 3, "string", "number"),
        ("name", 2.5, "string", "number"),
        ("name", {"a": 1}, "string", "object"),
        ("flag", "yes", "boolean", "string"),
        ("items", "a", "array", "string"),
        ("options", [], "object", "array"),
    ],
)
def test_types_are_named_as_javascript_names_them(field, value, expected, provided) -> None:
    line = f"The parameter `{field}` type is expected as `{expected}` but provided as `{provided}`"
    assert line in _message(**{field: value})


def test_the_seeds_example_reads_exactly() -> None:
    assert _message(limit="5") == (
        "Sample failed due to the following issue:\n"
        "The parameter `limit` type is expected as `number` but provided as `string`"
    )


def test_no_message_says_integer() -> None:
    assert "integer" not in _message(limit="x", name=1, flag=None)
