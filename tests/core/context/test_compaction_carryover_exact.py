"""What a compaction carries over into the first message, exactly: the person's recent prompts (their own
words only, newest kept within the budget), the todo list, and the recent files re-attached as the Read
tool would show them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tui_agent.core.context.carryover import carryover, file_block, prompts_block, recent_files, recent_prompts


def user(content: Any) -> dict[str, Any]:
    return {"role": "user", "content": content}


def uses(*calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "tool_use", "id": i, "name": n, "input": inp} for i, n, inp in calls]}


def results(*ids: str, errors: tuple[str, ...] = ()) -> dict[str, Any]:
    return user([{"type": "tool_result", "tool_use_id": i, "content": "ok", **({"is_error": True} if i in errors else {})} for i in ids])


def test_only_the_persons_own_words_count_as_prompts():
    history = [
        user("first prompt"),
        {"role": "assistant", "content": "answer"},
        user("<system-reminder>\nnot typed</system-reminder>"),
        user([{"type": "text", "text": "typed"}, {"type": "image", "source": {}}, {"type": "text", "text": "<system-reminder>x"},
              {"type": "text", "text": "and more"}, {"type": "text"}]),
        user([{"type": "tool_result", "tool_use_id": "t", "content": "r"}, {"type": "text", "text": "beside a result"}]),
        user(None),
        user([{"type": "image", "source": {}}]),
    ]
    assert recent_prompts(history) == ["first prompt", "typed\nand more"]


def test_the_newest_prompts_that_fit_the_budget_are_kept_and_a_lone_newest_one_is_cut():
    history = [user("o" * 40), user("m" * 40), user("n" * 40)]  # 10 tokens each
    assert recent_prompts(history, budget=30) == ["o" * 40, "m" * 40, "n" * 40]
    assert recent_prompts(history, budget=25) == ["m" * 40, "n" * 40]
    assert recent_prompts([user("o" * 4), user("n" * 40)], budget=12) == ["o" * 4, "n" * 40]
    assert recent_prompts([user("o" * 40), user("n" * 80)], budget=12) == ["n" * 48 + "\n[... cut to fit ...]"]


def test_the_prompts_block_wraps_each_prompt():
    assert prompts_block(["one", "two"]) == (
        "<system-reminder>\nThe user's most recent messages before the conversation was compacted, in their own words (oldest first):"
        "\n\n<user-message>\none\n</user-message>\n\n<user-message>\ntwo\n</user-message>\n</system-reminder>"
    )


def test_the_files_re_attached_are_the_newest_successful_file_calls_that_still_exist(tmp_path: Path):
    f = {n: tmp_path / f"{n}.py" for n in "abcdefgh"}
    for path in f.values():
        path.write_text("x = 1\n")
    history = [
        uses(("1", "Read", {"file_path": str(f["a"])}), ("2", "Edit", {"file_path": str(f["b"])})), results("1", "2"),
        uses(("3", "NotebookEdit", {"notebook_path": str(f["c"])}), ("4", "Bash", {"command": "cat x"}),
             ("5", "Write", {"file_path": str(f["d"])})), results("3", "4", "5"),
        {"role": "assistant", "content": "text only"},
        uses(("6", "Read", {"file_path": str(f["e"])}), ("7", "Read", {"file_path": str(tmp_path / "gone.py")}),
             ("8", "Read", {"file_path": ""}), ("9", "Read", {"file_path": str(f["f"])}), ("10", "Read", {"file_path": str(f["g"])})),
        results("6", "7", "8", "9", "10", errors=("9",)),
        uses(("11", "Read", {"file_path": str(f["g"])}), ("12", "MultiEdit", {"file_path": str(f["h"])}), ("13", "Read", {})),
        results("11", "12", "13"),
    ]
    assert recent_files(history) == [f["h"], f["g"], f["e"], f["d"], f["c"]]
    assert recent_files(history, limit=6) == [f["h"], f["g"], f["e"], f["d"], f["c"], f["b"]]


def test_a_file_is_re_attached_as_the_read_tool_shows_it_cut_to_its_budget(tmp_path: Path):
    small = tmp_path / "small.py"
    small.write_text("a = 1\nb = 2\n")
    head = 'Called the Read tool with the following input: {"file_path": "%s"}\nResult of calling the Read tool:\n'
    assert file_block(small) == "<system-reminder>\n" + head % small + "     1\ta = 1\n     2\tb = 2\n</system-reminder>"
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert file_block(empty) == "<system-reminder>\n" + head % empty + "\n</system-reminder>"
    whole = tmp_path / "whole.txt"  # read whole (under 2 x the limit) but longer than the limit once numbered
    whole.write_text("".join(f"l{i}\n" for i in range(40)))
    assert file_block(whole, budget=50) == "<system-reminder>\n" + head % whole + "".join(f"{i + 1:>6}\tl{i}\n" for i in range(19)) + (
        "[... the file continues: 40 lines in all; Read it with offset/limit for the rest ...]\n</system-reminder>")
    big = tmp_path / "big.txt"  # read only in part: ends on a whole line, no total
    big.write_text("".join(f"row {i}\n" for i in range(20_000)))
    assert file_block(big, budget=20) == "<system-reminder>\n" + head % big + "".join(f"{i + 1:>6}\trow {i}\n" for i in range(6)) + (
        "[... the file continues; Read it with offset/limit for the rest ...]\n</system-reminder>")


def test_a_whole_compaction_carries_prompts_todos_and_files_a_partial_one_only_todos(tmp_path: Path):
    path = tmp_path / "a.py"
    path.write_text("a = 1\n")
    history = [user("fix a"), uses(("1", "Read", {"file_path": str(path)})), results("1")]
    todos = [{"content": "fix a", "status": "in_progress"}, {"content": "test it"}]
    todo_text = "<system-reminder>\nThe todo list (TodoWrite) when the conversation was compacted:\n1. [in_progress] fix a\n2. [pending] test it\n</system-reminder>"
    whole = carryover(history, todos)
    assert whole.blocks == [{"type": "text", "text": prompts_block(["fix a"])}, {"type": "text", "text": todo_text},
                            {"type": "text", "text": file_block(path)}]
    assert whole.files == [path]
    partial = carryover(history, todos, whole=False)
    assert partial.blocks == [{"type": "text", "text": todo_text}] and partial.files == []
    assert carryover(history, None, whole=False).blocks == []
