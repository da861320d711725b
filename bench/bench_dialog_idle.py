"""What a program costs while it waits for a person's answer: the installed `tui-agent` (and Claude Code,
with `CLAUDE_BIN` or `claude` on PATH; see bench/claude_code.py) in a real pseudo-terminal, asked by the
scripted model to write a file, its permission question painted, then left alone. Prints the CPU the
program (and everything it started) used per second of waiting, and for scale the same at the idle
prompt before the request. Asserts nothing.

    python bench/bench_dialog_idle.py                  # tui-agent, then Claude Code when found
    python bench/bench_dialog_idle.py --seconds 20     # a longer window
    python bench/bench_dialog_idle.py --size 80x24     # another terminal size

A question can stay open for minutes (the person is reading a diff, or away): behind it the turn's timer
and the waiting call's lane keep counting, and each of their repaints under a translucent dialog made
Textual redraw the whole screen behind it.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_tui import _claude_setup, _tui_agent_setup, bench_env, cpu_seconds  # noqa: E402
from claude_code import claude_bin  # noqa: E402
from pty_terminal import PtyTerminal, contains  # noqa: E402

from tui_agent.providers.scripted import Reply, ScriptedModel, ScriptedServer, Text, ToolUse  # noqa: E402

ASKED = ("write this file?", "Do you want to create")  # tui-agent's dialog title, Claude Code's question


def script_for(cwd: Path):
    def script(body: dict[str, Any], index: int) -> Reply:
        if not body.get("tools"):
            return Reply([Text("ok")])  # side requests (titles, topics)
        # the prompt may share the last user message with a system reminder (Claude Code's)
        last = next((m for m in reversed(body.get("messages", [])) if m.get("role") == "user"), {"content": ""})
        blocks = last["content"] if isinstance(last["content"], list) else [{"type": "text", "text": last["content"]}]
        if any(isinstance(b, dict) and b.get("type") == "text" and "write a note" in b.get("text", "") for b in blocks):
            return Reply([Text("Writing it.\n\n"), ToolUse("Write", {"file_path": str(cwd / "note.md"), "content": "# Note\n\nhello\n"})])
        return Reply([Text("ok")])
    return script


def cpu_per_second(proc: psutil.Process, seconds: float) -> float:
    before, start = cpu_seconds(proc), time.monotonic()
    time.sleep(seconds)
    return (cpu_seconds(proc) - before) / (time.monotonic() - start)


def measure(name: str, argv: list[str], first_frame: str, setup: Any, seconds: float, size: tuple[int, int]) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="bench-dialog-"))
    home, cwd = root / "home", root / "project"
    home.mkdir()
    cwd.mkdir()
    setup(home, cwd)
    server = ScriptedServer(ScriptedModel(script_for(cwd))).start()
    out: dict[str, Any] = {}
    try:
        env = bench_env(root, home, server.url)
        env.update({"COLUMNS": str(size[0]), "LINES": str(size[1])})
        term = PtyTerminal(argv, env, str(cwd), columns=size[0], lines=size[1])
        try:
            if term.wait_for(contains(first_frame), 30) is None:
                raise RuntimeError(f"{name}: no first frame\n{term.text()}")
            time.sleep(2.0)  # the agent is built after the first frame
            proc = psutil.Process(term.proc.pid)
            out["idle_prompt"] = cpu_per_second(proc, seconds)
            term.type_slowly("write a note")
            term.send("\r")
            if term.wait_for(lambda lines: any(a in "\n".join(lines) for a in ASKED), 30) is None:
                raise RuntimeError(f"{name}: the question never showed\n{term.text()}")
            time.sleep(1.0)
            out["question_open"] = cpu_per_second(proc, seconds)
            out["screen"] = term.text()
        finally:
            term.close()
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("which", nargs="*", default=["tui-agent", "claude"])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--size", default="120x40")
    parser.add_argument("--show", action="store_true", help="print the screen with the question open")
    args = parser.parse_args()
    size = tuple(int(n) for n in args.size.split("x"))
    runs = []
    if "tui-agent" in args.which:
        agent = shutil.which("tui-agent") or str(Path(sys.executable).parent / "tui-agent")
        runs.append(("tui-agent", [agent], "esc interrupt", _tui_agent_setup))
    cli = claude_bin() if "claude" in args.which else None
    if cli:
        runs.append(("claude", [cli], "❯", _claude_setup))
    elif "claude" in args.which:
        print("(Claude Code not found: set CLAUDE_BIN, see bench/claude_code.py)")
    print(f"terminal {args.size}, {args.seconds:.0f} s windows; CPU of the program and its children, % of one core")
    for name, argv, first, setup in runs:
        out = measure(name, argv, first, setup, args.seconds, size)
        print(f"  {name:10s} idle at the prompt {100 * out['idle_prompt']:5.1f} %   "
              f"permission question open {100 * out['question_open']:5.1f} %")
        if args.show:
            print(out["screen"])


if __name__ == "__main__":
    main()
