"""Which old tool results pruning turns into stubs, what each stub says, and what a resume applies again."""

from __future__ import annotations

from typing import Any

from tui_agent.core.context.pruning import PRUNED_PREFIX, apply_records, prune_old_results, stub
from tui_agent.providers.scripted import Reply, Text

BIG = "b" * 24_000  # 6k tokens: enough alone to be worth pruning
IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "A" * 40_000}}


def result(tool_use_id: str, content: Any = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id}
    if content is not None:
        block["content"] = content
    return block


def call(*ids: str) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "tool_use", "id": i, "name": "Read", "input": {}} for i in ids]}


def history(old: list[list[dict[str, Any]]], ids: list[list[str]]) -> list[dict[str, Any]]:
    """The `old` result messages (each after its call), then the last three turns (two calls and an answer),
    whose results are never pruned."""
    out: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for results, calls in zip(old, ids):
        out += [call(*calls), {"role": "user", "content": results}]
    for n in range(2):
        out += [call(f"recent{n}"), {"role": "user", "content": [result(f"recent{n}", BIG)]}]
    return out + [{"role": "assistant", "content": [{"type": "text", "text": "done"}]}]


def contents(agent: Any) -> dict[str, Any]:
    return {b["tool_use_id"]: b.get("content") for m in agent.history if not isinstance(m["content"], str)
            for b in m["content"] if b.get("type") == "tool_result"}


async def agent_with(make_harness, hist: list[dict[str, Any]]) -> Any:
    h = make_harness([Reply([Text("ok")])])
    await h.agent.run("hi")
    h.agent.history[:] = hist
    return h.agent


async def test_every_large_text_result_is_pruned_whatever_sits_beside_it_and_the_rest_stay(make_harness):
    list_text = [{"type": "text", "text": "l" * 24_000}]
    mixed = [{"type": "text", "text": "i" * 24_000}, IMAGE]
    hist = history([
        [{"type": "text", "text": "a note before the results"}, result("after_text", BIG)],
        [result("image", mixed), result("after_image", BIG)],
        [result("small", "s" * 1_000), result("after_small", BIG)],
        [result("no_content"), result("as_list", list_text)],
        [result("exactly_500", "e" * 1_984), result("done_before", stub(9, "/x/y.txt"))],
        [result("only_image", [IMAGE])],
    ], [["after_text"], ["image", "after_image"], ["small", "after_small"], ["no_content", "as_list"],
        ["exactly_500", "done_before"], ["only_image"]])
    agent = await agent_with(make_harness, hist)
    pruned = prune_old_results(agent)
    assert pruned is not None
    assert set(pruned.stubs) == {"after_text", "after_image", "after_small", "as_list", "exactly_500"}
    now = contents(agent)
    for tool_use_id in pruned.stubs:
        assert now[tool_use_id] == pruned.stubs[tool_use_id] and now[tool_use_id].startswith(PRUNED_PREFIX)
    assert now["as_list"].startswith(f"{PRUNED_PREFIX}: 24,000 characters.")
    assert now["exactly_500"].startswith(f"{PRUNED_PREFIX}: 1,984 characters.")
    assert now["image"] == mixed and now["only_image"] == [IMAGE] and now["small"] == "s" * 1_000
    assert now["no_content"] is None and now["done_before"] == stub(9, "/x/y.txt")
    assert all(now[f"recent{n}"] == BIG for n in range(2))


async def test_results_worth_exactly_the_minimum_saving_are_pruned(make_harness):
    exact = "x" * (4 * 4_996)  # 4 + 4,996 = 5,000 tokens, the minimum
    agent = await agent_with(make_harness, history([[result("r", exact)]], [["r"]]))
    assert prune_old_results(agent) is not None and contents(agent)["r"].startswith(PRUNED_PREFIX)
    agent = await agent_with(make_harness, history([[result("r", exact[:-4])]], [["r"]]))
    assert prune_old_results(agent) is None


async def test_the_stub_counts_characters_not_bytes(make_harness):
    agent = await agent_with(make_harness, history([[result("r", "é" * 24_000)]], [["r"]]))
    assert prune_old_results(agent) is not None
    assert contents(agent)["r"].startswith(f"{PRUNED_PREFIX}: 24,000 characters.")


async def test_a_result_already_saved_elsewhere_is_stubbed_with_that_file(make_harness, tmp_path):
    elsewhere = tmp_path / "other-session" / "tool-results" / "r.txt"
    elsewhere.parent.mkdir(parents=True)
    elsewhere.write_text("f" * 50_000)
    preview = f"<persisted-output>\nOutput too large. Full output saved to: {elsewhere}\n" + "p" * 24_000
    agent = await agent_with(make_harness, history([[result("r", preview)]], [["r"]]))
    assert prune_old_results(agent) is not None
    assert contents(agent)["r"] == stub(50_000, elsewhere)


def test_a_resume_applies_only_our_system_records_to_results_it_has():
    results = {"a": {"type": "tool_result", "tool_use_id": "a", "content": "full"}}
    lines = [
        {"type": "system", "data": {"subtype": "context_pruned", "stubs": {"gone": "stub of gone", "a": "stub of a"}}},
        {"type": "user", "data": {"subtype": "context_pruned", "stubs": {"a": "not ours"}}},
    ]
    apply_records(lines, results)
    assert results == {"a": {"type": "tool_result", "tool_use_id": "a", "content": "stub of a"}}
