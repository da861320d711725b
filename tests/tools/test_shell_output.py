"""Output capture and progress lines: bounded memory, whole spill file, lines in order."""

from __future__ import annotations

from pathlib import Path

from tui_agent.tools.shell_output import OutputCapture, ProgressLines


def test_small_output_stays_in_memory(tmp_path: Path) -> None:
    capture = OutputCapture(tmp_path / "spill.txt", memory_limit=100)
    capture.write(b"hello ")
    capture.write(b"world")
    capture.close()
    assert capture.text() == "hello world" and not capture.spilled
    assert not (tmp_path / "spill.txt").exists()


def test_past_the_limit_keeps_head_and_tail_and_spills_everything(tmp_path: Path) -> None:
    capture = OutputCapture(tmp_path / "spill.txt", memory_limit=100)
    data = bytes(range(48, 58)) * 100  # 1,000 bytes of digits
    for i in range(0, len(data), 7):
        capture.write(data[i : i + 7])
    capture.close()
    assert capture.spilled and (tmp_path / "spill.txt").read_bytes() == data
    shown = capture.text()
    assert shown.startswith(data[:50].decode()) and shown.endswith(data[-50:].decode())
    assert "[900 bytes omitted" in shown


def test_progress_gets_whole_lines_in_order() -> None:
    seen: list[str] = []
    lines = ProgressLines(seen.append)
    for chunk in (b"al", b"pha\nbe", b"ta\n", b"gam", b"ma"):
        lines.feed(chunk)
    lines.flush()
    assert seen == ["alpha", "beta", "gamma"]


def test_a_chunk_of_many_lines_sends_only_its_last_ones() -> None:
    seen: list[str] = []
    lines = ProgressLines(seen.append, max_lines_per_chunk=3)
    lines.feed(b"".join(b"%d\n" % i for i in range(1000)))
    assert seen == ["997", "998", "999"]


def test_a_line_without_end_is_bounded() -> None:
    seen: list[str] = []
    lines = ProgressLines(seen.append, max_pending=10)
    lines.feed(b"x" * 1000)
    lines.feed(b"y\n")
    assert seen == ["x" * 10 + "y"]
