"""Write-ahead, proven by killing: `tui-agent -p` is SIGKILLed at every event of a scripted turn (each
stream event, a tool's start, a tool's end with its result written, the next response's events) and
its transcript is read back. Whatever the moment: the history is valid, the prompt is there, every block
that was complete is there, a tool that started is in the history with a result (its real one once it
ended), and resuming runs nothing again.

The scripted server stops sending after the chosen event (`hang_after`), and the process reports each
event it has acted on as a `stream_event` line (--include-partial-messages), so each kill lands right
after that event was handled, not at a random moment.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import psutil

from tests.core.support import assert_history_valid
from tui_agent.core.session.reader import CRASHED_TOOL, load
from tui_agent.providers.scripted import Reply, ScriptedModel, ScriptedServer, Text, ToolUse

LONG = "The command ran; here is a long explanation of what it did. " * 3
COMMAND = "echo start >> {effects}; while [ ! -e {go} ]; do sleep 0.01; done; echo end >> {effects}; echo tool-output"


def reply1(hang: int | None = None, command: str = "true") -> Reply:
    return Reply([Text("Running it."), ToolUse("Bash", {"command": command}, id="b1"), Text(LONG)], hang_after=hang)


def reply2(hang: int | None = None) -> Reply:
    return Reply([Text("Done.")], hang_after=hang)


def printed_events(reply: Reply) -> list[tuple[str, int]]:
    """(name, SSE events sent up to and including it) for each event the process prints as a
    stream_event line (every event but ping: --include-partial-messages prints them all), in order."""
    out: list[tuple[str, int]] = []
    for sent, (_delay, data) in enumerate(ScriptedModel([]).events(reply, {}), start=1):
        event = json.loads(data.decode().split("data: ", 1)[1])
        kind = event["type"]
        if kind == "ping":
            continue
        name = kind + (f" #{event['index']}" if "index" in event else "")
        out.append((name, sent))
    return out


def block_events(events: list[tuple[str, int]]) -> list[int]:
    """The positions worth a kill: each block's start and stop, and the message's end (a delta leaves
    the state its block's start left; message_start and message_delta change nothing on disk)."""
    return [j for j, (name, _sent) in enumerate(events) if name.startswith(("content_block_start", "content_block_stop", "message_stop"))]


@dataclass(frozen=True)
class KillPoint:
    name: str
    reply1_hang: int | None = None
    reply2_hang: int | None = None
    go_early: bool = False
    """The command may finish at once (else it waits for a file that never comes)."""
    wait_events: int = 0
    """Kill after this many stream_event lines."""
    wait_for: str = ""
    """Or after this state: "tool started", "result written"."""
    resume_for_real: bool = False
    """Also run `-c -p next` as a process (the rest read the file as resume reads it)."""


def kill_points() -> list[KillPoint]:
    first, second = printed_events(reply1()), printed_events(reply2())
    tool_stop = next(j for j, (name, _) in enumerate(first) if name == "content_block_stop #1")
    points = [KillPoint(f"after {first[j][0]} (response 1, event {j})", reply1_hang=first[j][1], wait_events=j + 1, resume_for_real=j == tool_stop)
              for j in block_events(first)]
    points += [
        KillPoint("while the tool runs", reply1_hang=first[tool_stop][1], wait_for="tool started", resume_for_real=True),
        KillPoint("after the tool ended and its result was written", reply1_hang=first[tool_stop][1], go_early=True, wait_for="result written", resume_for_real=True),
    ]
    points += [KillPoint(f"after {second[j][0]} (response 2)", reply2_hang=second[j][1], go_early=True, wait_events=len(first) + j + 1)
               for j in block_events(second)]
    return points


def environment(root: Path, url: str) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    e.update({"HOME": str(root / "home"), "XDG_DATA_HOME": str(root / "data"), "XDG_CONFIG_HOME": str(root / "home" / ".config"),
              "ANTHROPIC_API_KEY": "sk-test", "ANTHROPIC_BASE_URL": url, "TUI_AGENT_MAX_RETRIES": "0"})
    return e


def transcript(root: Path) -> Path | None:
    found = sorted((root / "data" / "tui-agent" / "projects").glob("*/*.jsonl"))
    return found[0] if found else None


def run_point(point: KillPoint, root: Path) -> list[str]:
    """Kill at `point`, then check the record. Returns what is wrong (empty: all holds)."""
    work = root / "work"
    work.mkdir(parents=True)
    effects, go = work / "effects", work / "go"
    if point.go_early:
        go.touch()
    command = COMMAND.format(effects=effects, go=go)
    problems: list[str] = []
    with ScriptedServer(ScriptedModel([reply1(point.reply1_hang, command), reply2(point.reply2_hang)])) as server:
        env = environment(root, server.url)
        proc = subprocess.Popen(
            [sys.executable, "-m", "tui_agent", "-p", "run it", "--allowedTools", "Bash", "--output-format", "stream-json",
             "--verbose", "--include-partial-messages"],
            env=env, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        reached = _wait(point, proc, effects, root)
        proc.kill()  # SIGKILL: no cleanup of any kind
        proc.wait(30)
        _kill_orphans(work)  # the orphaned shell is the test's to clean up
    if not reached:
        problems.append("the process never reached the kill point")
    return problems + _check_record(point, root, effects)


def _wait(point: KillPoint, proc: subprocess.Popen[str], effects: Path, root: Path) -> bool:
    """Until the process has handled the point's event (its stream_event line) or state; False if it
    ended or went silent first (a watchdog kills it after two minutes, so a broken build fails)."""
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    try:
        if point.wait_for:
            return _wait_for_state(point.wait_for, proc, effects, root)
        seen = 0
        assert proc.stdout is not None
        for line in proc.stdout:
            if json.loads(line).get("type") == "stream_event":
                seen += 1
                if seen == point.wait_events:
                    return True
        return False
    finally:
        watchdog.cancel()


def _wait_for_state(what: str, proc: subprocess.Popen[str], effects: Path, root: Path) -> bool:
    import time

    while proc.poll() is None:
        if what == "tool started" and effects.exists() and "start" in effects.read_text():
            return True
        path = transcript(root)
        if what == "result written" and path is not None and '"tool_result"' in path.read_text():
            return True
        time.sleep(0.01)  # polling state, not a deadline: the watchdog bounds it
    return False


def _kill_orphans(work: Path) -> None:
    """The command the killed process started: nothing of the test is left running. It is found by what it runs
    or where it runs: a shell forked just before the kill may not have exec'd yet (its command line is still
    Python's, its folder already `work`), so the scan repeats until one finds nothing."""
    import os

    here = str(work)
    for _ in range(100):
        found = []
        for proc in psutil.process_iter(["pid", "cmdline", "cwd"]):
            cwd = proc.info["cwd"] or ""
            if proc.info["pid"] != os.getpid() and (cwd == here or cwd.startswith(here + "/") or any(here in part for part in proc.info["cmdline"] or [])):
                found.append(proc)
        if not found:
            return
        for proc in found:
            try:
                proc.kill()
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                pass
        psutil.wait_procs(found, timeout=5)


def _check_record(point: KillPoint, root: Path, effects: Path) -> list[str]:
    problems: list[str] = []
    path = transcript(root)
    if path is None:
        return ["no transcript at all"]
    conv = load(path)
    history = conv.history
    try:
        assert_history_valid(history + [{"role": "user", "content": "next"}])
    except AssertionError as exc:
        problems.append(f"history invalid: {exc}")
    if not history or history[0] != {"role": "user", "content": "run it"}:
        problems.append(f"the prompt is not first: {history[:1]}")
    blocks = [b for m in history if m["role"] == "assistant" for b in m["content"]]
    texts = [b.get("text") for b in blocks if b.get("type") == "text"]
    tool_uses = [b for b in blocks if b.get("type") == "tool_use"]
    results = {b["tool_use_id"]: b for m in history if m["role"] == "user" and isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_result"}
    ran = effects.read_text().split() if effects.exists() else []
    sent = {name: count for name, count in printed_events(reply1())}
    whole = point.reply2_hang is not None or point.reply1_hang is None
    if (whole or point.reply1_hang >= sent["content_block_stop #0"]) and "Running it." not in texts:
        problems.append("the first text block, complete before the kill, is missing")
    if (whole or point.reply1_hang >= sent["content_block_stop #2"]) and LONG not in texts:
        problems.append("the long text block, complete before the kill, is missing")
    if "start" in ran:
        if not tool_uses:
            problems.append("the command ran but its tool_use is not in the history")
        elif "b1" not in results:
            problems.append("the tool_use has no result")
    if "end" in ran and point.wait_for == "result written":
        content = str(results.get("b1", {}).get("content", ""))
        if "tool-output" not in content or CRASHED_TOOL in content:
            problems.append(f"the tool ended and its result was written, but the history has: {content[:200]}")
    if point.resume_for_real:
        problems += _resume(root, effects, ran)
    return problems


def _resume(root: Path, effects: Path, ran_before: list[str]) -> list[str]:
    problems: list[str] = []
    with ScriptedServer(ScriptedModel([Reply([Text("ok")])])) as server:
        env = environment(root, server.url)
        done = subprocess.run([sys.executable, "-m", "tui_agent", "-c", "-p", "next"], env=env, cwd=root / "work",
                              capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        problems.append(f"-c -p failed ({done.returncode}): {done.stderr[-500:]}")
    elif not server.model.requests:
        problems.append("-c -p sent no request")
    else:
        messages = server.model.requests[0]["messages"]
        try:
            assert_history_valid(messages)
        except AssertionError as exc:
            problems.append(f"the resumed request is invalid: {exc}")
        last = messages[-1]["content"]
        if not (isinstance(last, list) and last[-1].get("text") == "next" or last == "next"):
            problems.append("the resumed request does not end with the new prompt")
    ran_after = effects.read_text().split() if effects.exists() else []
    if ran_after.count("start") > max(1, ran_before.count("start")):
        problems.append("the resume ran the command again")
    return problems


def test_a_kill_at_any_event_of_a_turn_loses_nothing_that_happened(tmp_path: Path) -> None:
    points = kill_points()
    with ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(lambda ip: (ip[1], run_point(ip[1], tmp_path / f"p{ip[0]}")), enumerate(points)))
    failures = [f"{point.name}: {'; '.join(problems)}" for point, problems in outcomes if problems]
    assert not failures, "\n".join(failures)
    assert len(outcomes) == len(points) >= 12
