"""The history's rules, one by one (core/history.py): `history_problems` names exactly the rule a history
breaks and where (it is the oracle every loop test asserts with, so a silent one would hide real bugs), what
the API is sent (merged roles, a text block for a string, the cache breakpoint), the text of a message, and
the repair answering the *last* assistant message. Found by mutation testing (docs/testing/mutation.md)."""

from __future__ import annotations

from typing import Any

import pytest

from tui_agent.core.history import (
    history_problems,
    last_text,
    merged,
    normalize_for_api,
    repair_message,
    results_message,
    tool_use_ids,
)
from tui_agent.tools.validation import tool_use_error


def user(*blocks: Any) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def assistant(*ids: str, text: str = "on it") -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}, *({"type": "tool_use", "id": i, "name": "T", "input": {}} for i in ids)]}


def result(tool_id: str, text: str = "ok") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": text}


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


BROKEN: list[tuple[str, list[dict[str, Any]], list[str]]] = [
    ("empty", [], ["the history is empty"]),
    ("assistant first", [assistant(), user(text("hi"))], ["the history does not start with a user message"]),
    ("assistant first, its result after", [assistant("a"), user(result("a"))], ["the history does not start with a user message"]),
    ("empty assistant", [user(text("hi")), {"role": "assistant", "content": []}], ["message 1: an empty assistant message"]),
    ("repeated id", [user(text("hi")), assistant("a", "a"), user(result("a"), result("a"))], ["message 1: a tool_use id repeats"]),
    ("tool_use last", [user(text("hi")), assistant("a")], ["message 1: tool_use without a following user message"]),
    ("tool_use last after a plain answer", [user(text("hi")), assistant(), user(text("more")), assistant("a")],
     ["message 3: tool_use without a following user message"]),
    ("results out of order", [user(text("hi")), assistant("a", "b"), user(result("b"), result("a"))],
     ["message 2: results ['b', 'a'] do not answer ['a', 'b'] in order"]),
    ("results not first", [user(text("hi")), assistant("a"), user(text("note"), result("a"))],
     ["message 2: tool_result blocks do not come first"]),
    ("orphan result", [user(result("z"))], ["message 0: tool_result z answers no tool_use of the message before"]),
    ("orphan result, a tool_use at the end", [user(result("a")), assistant("a")],
     ["message 0: tool_result a answers no tool_use of the message before", "message 1: tool_use without a following user message"]),
]


@pytest.mark.parametrize(("history", "problems"), [(h, p) for _, h, p in BROKEN], ids=[name for name, _, _ in BROKEN])
def test_history_problems_names_exactly_the_rule_broken_and_where(history: list[dict[str, Any]], problems: list[str]) -> None:
    assert history_problems(history) == problems


def test_a_valid_history_has_no_problems_at_all() -> None:
    history = [{"role": "user", "content": "hi"}, assistant("a", "b"), user(result("a"), result("b"), text("note")), assistant()]
    assert history_problems(history) == []


def test_a_string_message_is_sent_as_one_text_block_and_roles_merge() -> None:
    history = [{"role": "user", "content": "[Request interrupted by user]"}, {"role": "user", "content": "next"}]
    assert merged(history) == [{"role": "user", "content": [text("[Request interrupted by user]"), text("next")]}]


def test_the_cache_breakpoint_goes_on_the_last_block_and_an_empty_history_stays_empty() -> None:
    assert normalize_for_api([]) == []
    sent = normalize_for_api([{"role": "user", "content": "hi"}])
    assert sent == [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]
    # a message with nothing in it gets no breakpoint (and is not an error here: history_problems reports it)
    assert normalize_for_api([{"role": "user", "content": []}]) == [{"role": "user", "content": []}]


def test_last_text_joins_the_text_blocks_only() -> None:
    assert last_text(None) == ""
    assert last_text({"role": "assistant", "content": "plain"}) == "plain"
    message = {"role": "assistant", "content": [text("a"), {"type": "tool_use", "id": "t", "name": "T", "input": {}}, {"type": "text"}, text("b")]}
    assert last_text(message) == "ab"


def test_tool_use_ids_of_an_assistant_string_or_a_user_message_are_none() -> None:
    assert tool_use_ids({"role": "assistant", "content": "just text"}) == []
    assert tool_use_ids(user({"type": "tool_use", "id": "x", "name": "T", "input": {}})) == []
    assert tool_use_ids(assistant("a", "b")) == ["a", "b"]


def test_the_default_filler_says_the_tool_did_not_run() -> None:
    (filler,) = results_message(assistant("a"), [])["content"]
    assert filler == {"type": "tool_result", "tool_use_id": "a", "is_error": True,
                      "content": tool_use_error("Interrupted by user (the tool did not run)")}


def test_repair_answers_the_last_assistant_message_not_an_earlier_one() -> None:
    history = [user(text("hi")), assistant(), user(text("go on")), assistant("a", "b")]
    known = {"b": result("b", "B done")}
    repaired = repair_message(history, "The run was cancelled", known=known.get)
    assert repaired is not None
    blocks = repaired["content"]
    assert [b["tool_use_id"] for b in blocks] == ["a", "b"]
    assert "The run was cancelled" in str(blocks[0]["content"]) and blocks[0]["is_error"] is True
    assert blocks[1] == result("b", "B done")
    assert history_problems([*history, repaired]) == []


def test_repair_takes_the_known_result_of_the_last_message_even_when_an_earlier_one_has_tool_uses() -> None:
    history = [user(text("hi")), assistant("x"), user(result("x")), assistant("a")]
    repaired = repair_message(history, "cancelled", known={"a": result("a", "A"), "x": result("x", "X")}.get)
    assert repaired == user(result("a", "A"))
