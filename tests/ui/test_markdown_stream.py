"""The streamed answer is cut into finished blocks and a small tail, however it arrives."""

from __future__ import annotations

from tui_agent.ui.widgets.markdown_stream import MAX_BLOCK_LINES, MAX_LINE_CHARS, MarkdownStream


def feed(text: str, size: int) -> MarkdownStream:
    stream = MarkdownStream()
    for i in range(0, len(text), size):
        stream.append(text[i : i + size])
    return stream


def test_blocks_end_at_blank_lines_whatever_the_chunking() -> None:
    text = "# Title\n\nFirst paragraph\nstill first.\n\n- a\n- b\n\nlast words"
    for size in (1, 3, 7, 100):
        stream = feed(text, size)
        assert stream.finished == ["# Title", "First paragraph\nstill first.", "- a\n- b"]
        assert stream.tail == "last words"
        stream.close()
        assert stream.finished[-1] == "last words" and stream.tail == ""


def test_code_fences_keep_blank_lines_and_an_open_fence_renders_closed() -> None:
    stream = feed("Intro\n```python\ndef f():\n\n    return 1\n", 5)
    assert stream.finished == ["Intro"]
    assert stream.tail == "```python\ndef f():\n\n    return 1\n```"
    stream.append("```\nafter\n")
    assert stream.finished[-1] == "```python\ndef f():\n\n    return 1\n```"


def test_a_long_code_block_is_cut_into_fenced_pieces() -> None:
    body = "\n".join(f"x = {i}" for i in range(3 * MAX_BLOCK_LINES))
    stream = feed(f"```py\n{body}\n```\n", 50)
    assert len(stream.finished) >= 3
    assert all(b.startswith("```py\n") and b.endswith("\n```") for b in stream.finished)
    assert len(stream.tail.splitlines()) <= MAX_BLOCK_LINES + 1


def test_the_tail_stays_bounded_without_any_newline() -> None:
    stream = feed("word " * 10_000, 20)
    assert len(stream.tail) <= MAX_LINE_CHARS * MAX_BLOCK_LINES
    stream.close()
    assert "".join(stream.finished).replace("\n", " ").split() == ["word"] * 10_000
