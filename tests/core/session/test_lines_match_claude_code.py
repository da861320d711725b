"""Our transcript lines equal, field by field and by value, the lines Claude Code 2.1.197 wrote for the same
scripted turn (the same prompt, the same streamed responses from the scripted server, the same files).

Both sides are normalised only where they must differ: line uuids and tool/message ids become the line or
tool they name, timestamps are dropped (ours are checked for format and time apart), the golden's
`/home/user/project` becomes our working folder and its session id ours. Everything else must be equal, or
be a listed difference (`DIFFERENT`: a reason each, and the value ours must have instead), or a field we
add (`OURS_ONLY`). Golden lines: fixtures/claude_code_tool_turn.jsonl (Read, Bash, a subdirectory's
CLAUDE.md) and fixtures/claude_code_2.1.197_thinking_edit_write.jsonl (thinking, Read, Edit, Write, a Bash
writing to stderr), both written by `claude -p` against tui_agent/providers/scripted.py (fixtures/README.md).
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tests.core.session.claude_code_lines import (
    TOOL_RESULTS,
    claude_code_model,
    is_tool_result,
    our_model,
)
from tui_agent.config import AgentSettings
from tui_agent.core.session.lines import MessageLine
from tui_agent.factory import build_agent
from tui_agent.providers.scripted import Reply, ScriptedModel, Text, Thinking, ToolUse

FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN_CWD = "/home/user/project"
ISO_MS_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
Line = dict[str, Any]


def golden(name: str) -> list[Line]:
    return [json.loads(line) for line in (FIXTURES / name).read_text().splitlines() if line.strip()]


def result_text(line: Line) -> str:
    content = line["message"]["content"][0]["content"]
    return content if isinstance(content, str) else "".join(b["text"] for b in content)


@dataclass(frozen=True)
class Different:
    reason: str
    ours: Callable[[Line, Line], bool]
    """What must hold of our line (and the golden's) instead of equality."""


KNOWN_GAP = "KNOWN GAP (reported, not fixed here): "
CLAUDE_CODES_USAGE = ("server_tool_use", "service_tier", "cache_creation", "inference_geo", "iterations", "speed")
# (kind pattern, field path pattern) -> why ours differs, and what ours must be instead.
DIFFERENT: dict[tuple[str, str], Different] = {
    ("*", "entrypoint"): Different("who wrote the line: Claude Code says how it was started (cli, sdk-cli); we say we did",
                                   lambda o, g: o["entrypoint"] == "tui-agent"),
    ("*", "promptId"): Different(KNOWN_GAP + "not written: Claude Code's id of the prompt a line answers; no reader "
                                 "(theirs or ours) rebuilds a conversation from it", lambda o, g: "promptId" not in o),
    ("prompt", "promptSource"): Different(KNOWN_GAP + "not written: how Claude Code received the prompt (sdk)",
                                          lambda o, g: "promptSource" not in o),
    ("assistant:*", "message.stop_reason"): Different(
        "write-ahead (writer.py): each block is on disk when it ends, before the message_delta that brings the stop "
        "reason; Claude Code 2.1.197's lines carry the whole response's (1.0.x's were null, as ours)",
        lambda o, g: o["message"]["stop_reason"] is None),
    ("assistant:*", "message.usage.output_tokens"): Different(
        "write-ahead, as stop_reason: the usage of message_start (output_tokens 1), not message_delta's",
        lambda o, g: o["message"]["usage"]["output_tokens"] == 1),
    **dict.fromkeys([("assistant:*", f"message.usage.{name}*") for name in CLAUDE_CODES_USAGE], Different(
        "Claude Code fills its own defaults into usage; we keep the usage the API sent (the scripted server sends none of these)",
        lambda o, g: set(o["message"]["usage"]) == {"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"})),
    ("assistant:*", "message.stop_details"): Different("Claude Code's own field (null); the API sent none",
                                                       lambda o, g: "stop_details" not in o["message"]),
    ("assistant:*", "requestId"): Different(KNOWN_GAP + "null: the response's request-id header never reaches the writer "
                                            "(writer.py reads meta['request_id'], loop.py never sets it)", lambda o, g: o["requestId"] is None),
    ("assistant:tool_use:Edit", "message.content.0.input.replace_all"): Different(
        "Claude Code stores the tool's input with its defaults filled in; we keep the input as the model sent it",
        lambda o, g: "replace_all" not in o["message"]["content"][0]["input"]),
    ("result:*", "toolUseResult*"): Different(
        KNOWN_GAP + "Claude Code keeps the tool's own output object ({stdout, stderr...}, {type, file}, {filePath, "
        "structuredPatch...}); we keep the text the model got (our tools hand the writer no such object)",
        lambda o, g: o["toolUseResult"] == result_text(o) and (o["toolUseResult"] == g["toolUseResult"]["stdout"] if "stdout" in g["toolUseResult"] else True)),
    ("result:Read", "message.content.0.content"): Different(
        "Read's output format is the tool's (tools/read.py pads line numbers, Claude Code 2.1.197 numbers the empty last line)",
        lambda o, g: result_text(o).split("\n")[0].split("\t")[1] == result_text(g).split("\n")[0].split("\t")[1]),
    ("result:Edit", "message.content.0.content"): Different(
        "Edit's message is the tool's (ours shows a snippet; Claude Code's says the file state is current)",
        lambda o, g: result_text(o).startswith(result_text(g).split(" successfully")[0])),
    ("result:Write", "message.content.0.content"): Different(
        "Write's message is the tool's (Claude Code 2.1.197 adds that the file state is current)",
        lambda o, g: result_text(g).startswith(result_text(o))),
    ("result:Bash", "message.content.0.is_error"): Different(
        "Claude Code writes is_error false on Bash's results; we leave out the API's default", lambda o, g: "is_error" not in o["message"]["content"][0]),
    **dict.fromkeys([("memory", "type"), ("memory", "attachment.*"), ("memory", "message.*"), ("memory", "isMeta")], Different(
        "Claude Code records a subdirectory's CLAUDE.md as a nested_memory attachment; our history holds API messages "
        "only, so it is the isMeta user line the model got, with the text our reader makes of Claude Code's attachment "
        "(but for one newline: KNOWN GAP, memory_context.py drops the file's last newline, Claude Code sends it)",
        lambda o, g: o["type"] == "user" and o["isMeta"] is True
        and o["message"]["content"] == [{"type": "text", "text": memory_text_of(g).replace("\n\n</system-reminder>", "\n</system-reminder>")}])),
}
OURS_ONLY = {("result:*", "tuiAgentTool*"): "what the screen showed of the call (status, duration, summary, data), for a resume"}
NOT_WRITTEN = {
    "ai-title": "a title Claude Code asks the model for; we name a session by its first prompt",
    "queue-operation": "Claude Code's input queue (-p, SDK); ours has none to record",
    "last-prompt": "Claude Code's cache of the last prompt for its picker; ours reads the chain",
    "attachment:agent_listing_delta": "Claude Code's reminders of its agents; we send none",
    "attachment:skill_listing": "Claude Code's reminders of its skills; we have no skills",
}
TYPES_OURS_ONLY = {"tui-agent-run": "how a run ended (reason, turns, cost); Claude Code skips it"}


def memory_text_of(attachment_line: Line) -> str:
    """What our reader makes of Claude Code's nested_memory attachment (the text sent to the model)."""
    from tui_agent.core.session.reader import rebuild

    return rebuild([{"type": "user", "uuid": "u", "parentUuid": None, "sessionId": "s", "message": {"role": "user", "content": "x"}},
                    {**attachment_line, "parentUuid": "u"}]).history[-1]["content"][-1]["text"]


# ----- running the same turn as the golden --------------------------------------------------------
@dataclass
class Run:
    lines: list[Line]
    golden: list[Line]
    work: Path
    session_id: str
    started: float
    ended: float


def script_like(gold: list[Line], work: Path) -> list[Reply]:
    """The responses of the golden file, streamed again: its blocks in order, its token counts."""
    replies: dict[str, Reply] = {}
    for line in gold:
        if line["type"] != "assistant":
            continue
        msg = line["message"]
        reply = replies.setdefault(msg["id"], Reply([], input_tokens=msg["usage"]["input_tokens"], output_tokens=msg["usage"]["output_tokens"]))
        block = json.loads(json.dumps(msg["content"][0]).replace(GOLDEN_CWD, str(work)))
        if block["type"] == "text":
            reply.blocks.append(Text(block["text"]))
        elif block["type"] == "thinking":
            reply.blocks.append(Thinking(block["thinking"], block["signature"]))
        else:
            block["input"].pop("replace_all", None)  # what the model sent (Claude Code adds the default)
            reply.blocks.append(ToolUse(block["name"], block["input"]))
    return list(replies.values())


async def run_like(name: str, base: Path, files: dict[str, str], branch: str | None = "master", **settings: Any) -> Run:
    """Our agent, in a folder like the golden's (a git repo on `branch`), answering the golden's prompt."""
    gold = golden(name)
    work = base / "project"
    for rel, text in files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text)
    work.mkdir(parents=True, exist_ok=True)
    if branch is not None:
        git = await asyncio.create_subprocess_exec("git", "init", "-q", "-b", branch, cwd=work)
        assert await git.wait() == 0
    prompt = next(l["message"]["content"] for l in gold if l["type"] == "user" and isinstance(l["message"]["content"], str))
    agent = build_agent(AgentSettings(cwd=work, allowed_tools=["Bash(echo:*)"], **settings), emit=lambda e: None,
                        scripted=ScriptedModel(script_like(gold, work)))
    started = time.time()
    await agent.run(prompt)
    await agent.close()
    return Run(agent.session.read(), gold, work, agent.session.id, started, time.time())


async def read_bash_turn(base: Path, **kw: Any) -> Run:
    return await run_like("claude_code_tool_turn.jsonl", base, {"sub/a.txt": "hello\n", "sub/CLAUDE.md": "sub memory\n"}, **kw)


async def edit_write_turn(base: Path, **kw: Any) -> Run:
    return await run_like("claude_code_2.1.197_thinking_edit_write.jsonl", base, {"p.py": "def f():\n    return 1\n"},
                          permission_mode="acceptEdits", **kw)


# ----- pairing and normalising --------------------------------------------------------------------
def kinds(lines: list[Line]) -> dict[str, str]:
    """uuid -> what the line is ("prompt", "assistant:text:Let me look.", "result:Bash", "memory"), for
    the lines both sides write; other lines have no kind."""
    tools = {l["message"]["content"][0]["id"]: l["message"]["content"][0]["name"] for l in lines
             if l["type"] == "assistant" and l["message"]["content"][0]["type"] == "tool_use"}
    out = {}
    for l in lines:
        if l["type"] == "assistant":
            b = l["message"]["content"][0]
            out[l["uuid"]] = f"assistant:{b['type']}:" + (b.get("name") or b.get("text") or b.get("thinking"))
        elif l["type"] == "user":
            out[l["uuid"]] = "result:" + tools[l["message"]["content"][0]["tool_use_id"]] if is_tool_result(l) else "memory" if l.get("isMeta") else "prompt"
        elif l["type"] == "attachment" and l["attachment"]["type"] == "nested_memory":
            out[l["uuid"]] = "memory"
    assert len(set(out.values())) == len(out), "two lines of the same kind: the pairing would be ambiguous"
    return out


def normalised(line: Line, lines: list[Line], session_id: str, cwd: str) -> dict[str, Any]:
    """The line flattened to {"message.usage.input_tokens": 6200, ...}, ids replaced by what they name."""
    by_uuid = {l["uuid"]: l for l in lines if "uuid" in l}
    named = kinds(lines)
    tools = {}
    responses: dict[str, str] = {}
    for l in lines:
        if l["type"] == "assistant":
            responses.setdefault(l["message"]["id"], f"response#{len(responses)}")
            if l["message"]["content"][0]["type"] == "tool_use":
                tools[l["message"]["content"][0]["id"]] = "tool:" + l["message"]["content"][0]["name"]

    def line_ref(uuid: str | None) -> str | None:
        while uuid is not None and uuid not in named:  # through lines only one side writes (listings)
            uuid = by_uuid[uuid]["parentUuid"]
        return named.get(uuid) if uuid else None

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, str):
            return tools.get(value) or value.replace(GOLDEN_CWD, cwd).replace(session_id, "<session>")
        return value

    out = walk({k: v for k, v in line.items() if k != "timestamp"})
    for key in ("uuid", "parentUuid", "sourceToolAssistantUUID"):
        if key in out:
            out[key] = line_ref(line[key])
    if line["type"] == "assistant":
        out["message"]["id"] = responses[line["message"]["id"]]
    return flat(out)


def flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, (dict, list)) and value:
        items = value.items() if isinstance(value, dict) else enumerate(value)
        return {path: v for k, x in items for path, v in flat(x, f"{prefix}.{k}" if prefix else str(k)).items()}
    return {prefix: value}


def compare(run: Run, used: set[tuple[str, str]]) -> list[str]:
    """Every field of every line both sides write: equal, or a listed difference whose condition holds."""
    ours, gold = kinds(run.lines), kinds(run.golden)
    pairs = {kind: (next(l for l in run.lines if l.get("uuid") == u), next(l for l in run.golden if l.get("uuid") == g))
             for u, kind in ours.items() for g, gkind in gold.items() if gkind == kind}
    problems = [f"{kind}: only Claude Code writes it" for kind in set(gold.values()) - set(ours.values())]
    problems += [f"{kind}: only we write it" for kind in set(ours.values()) - set(gold.values())]
    golden_session = next(l["sessionId"] for l in run.golden if "uuid" in l)
    for kind, (o, g) in pairs.items():
        mine = normalised(o, run.lines, run.session_id, str(run.work))
        theirs = normalised(g, run.golden, golden_session, str(run.work))
        g = json.loads(json.dumps(g).replace(GOLDEN_CWD, str(run.work)))
        for path in sorted(set(mine) | set(theirs)):
            if mine.get(path, "<absent>") == theirs.get(path, "<absent>"):
                continue
            listed = [key for key in DIFFERENT if fnmatch.fnmatchcase(kind, key[0]) and fnmatch.fnmatchcase(path, key[1])]
            added = path not in theirs and any(fnmatch.fnmatchcase(kind, k) and fnmatch.fnmatchcase(path, p) for k, p in OURS_ONLY)
            if added:
                continue
            if not listed:
                problems.append(f"{kind} {path}: ours {mine.get(path, '<absent>')!r}, Claude Code's {theirs.get(path, '<absent>')!r}")
            elif not DIFFERENT[listed[0]].ours(o, g):
                problems.append(f"{kind} {path}: a listed difference ({listed[0]}), but ours is not what it says: {mine.get(path, '<absent>')!r}")
            used.update(listed)
    return problems


# ----- the tests ----------------------------------------------------------------------------------
class TestOurLinesEqualClaudeCodesByValue:
    async def test_every_field_of_every_message_line_equals_claude_codes_or_is_a_listed_difference(self, tmp_path, data_home):
        used: set[tuple[str, str]] = set()
        runs = [await read_bash_turn(tmp_path / "a"), await edit_write_turn(tmp_path / "b")]
        problems = [p for run in runs for p in compare(run, used)]
        assert problems == []
        assert set(DIFFERENT) - used == set(), "a listed difference no longer differs: take it off the list"

    async def test_the_line_types_each_side_writes_differ_only_as_listed(self, tmp_path, data_home):
        def types(lines: list[Line]) -> set[str]:
            return {l["type"] + (":" + l["attachment"]["type"] if l["type"] == "attachment" and l["attachment"]["type"] != "nested_memory" else "")
                    for l in lines} - {"attachment"}
        runs = [await read_bash_turn(tmp_path / "a"), await edit_write_turn(tmp_path / "b")]
        assert set().union(*(types(r.golden) - types(r.lines) for r in runs)) == set(NOT_WRITTEN)
        assert set().union(*(types(r.lines) - types(r.golden) for r in runs)) == set(TYPES_OURS_ONLY)

    async def test_cwd_session_id_and_times_are_this_sessions(self, tmp_path, data_home):
        run = await edit_write_turn(tmp_path)
        session_path = next((data_home / "tui-agent" / "projects").glob("*/*.jsonl"))
        assert session_path.stem == run.session_id
        for line in run.lines:
            assert line["sessionId"] == run.session_id
            assert ISO_MS_Z.match(line["timestamp"])
            assert run.started - 0.01 <= datetime.fromisoformat(line["timestamp"]).timestamp() <= run.ended + 0.01
            if "uuid" in line:
                assert line["cwd"] == str(run.work.resolve()) and line["gitBranch"] == "master"
                assert (line["isSidechain"], line["userType"], line["version"]) == (False, "external", "2.1.197")

    async def test_git_branch_is_the_repositorys_current_branch(self, tmp_path, data_home):
        run = await read_bash_turn(tmp_path, branch="feature/lines")
        assert {l["gitBranch"] for l in run.lines if "uuid" in l} == {"feature/lines"}

    async def test_outside_a_repository_git_branch_is_empty_where_claude_code_writes_HEAD(self, tmp_path, data_home):
        # KNOWN GAP (reported): Claude Code 2.1.197 answers "HEAD" when there is no repository (as for a detached
        # HEAD); paths.git_branch answers "" so the picker shows no branch.
        assert {l["gitBranch"] for l in golden("claude_code_2.1.197_outside_git.jsonl") if "uuid" in l} == {"HEAD"}
        run = await read_bash_turn(tmp_path, branch=None)
        assert {l["gitBranch"] for l in run.lines if "uuid" in l} == {""}

    async def test_tool_use_result_is_the_text_the_model_got_for_each_tool(self, tmp_path, data_home):
        run = await edit_write_turn(tmp_path)
        results = {k.split(":")[1]: next(l for l in run.lines if l.get("uuid") == u) for u, k in kinds(run.lines).items() if k.startswith("result:")}
        work = str(run.work)
        assert results["Read"]["toolUseResult"] == "     1\tdef f():\n     2\t    return 1"
        assert results["Bash"]["toolUseResult"] == "out\nerr"  # Claude Code's {stdout: "out\nerr", stderr: ""}
        assert results["Write"]["toolUseResult"] == f"File created successfully at: {work}/new.txt"
        assert results["Edit"]["toolUseResult"].startswith(f"The file {work}/p.py has been updated.")
        for name, line in results.items():
            assert line["toolUseResult"] == result_text(line), name
            assert line["tuiAgentTool"]["status"] == "ok" and line["tuiAgentTool"]["ran"] is True, name
        assert results["Write"]["tuiAgentTool"]["data"] == {"type": "diff", "path": f"{work}/new.txt", "created": True,
                                                            "diff": f"--- {work}/new.txt\n+++ {work}/new.txt\n@@ -0,0 +1 @@\n+new\n"}
        assert "-    return 1\n+    return 2" in results["Edit"]["tuiAgentTool"]["data"]["diff"]

    @pytest.mark.xfail(strict=True, reason="KNOWN GAP: toolUseResult is the result's text, not Claude Code's tool output object")
    async def test_tool_use_result_is_claude_codes_object_for_each_tool(self, tmp_path, data_home):
        run = await edit_write_turn(tmp_path)
        ours, gold = kinds(run.lines), kinds(run.golden)
        for u, kind in ours.items():
            if kind.startswith("result:"):
                line = next(l for l in run.lines if l.get("uuid") == u)
                want = next(l for l in run.golden if l.get("uuid") == next(g for g, k in gold.items() if k == kind))
                TOOL_RESULTS[kind.split(":")[1]].model_validate(line["toolUseResult"])
                assert line["toolUseResult"] == json.loads(json.dumps(want["toolUseResult"]).replace(GOLDEN_CWD, str(run.work)))

    def test_claude_codes_memory_attachment_reads_as_the_text_claude_code_sent(self):
        # Claude Code 2.1.197 sent, after the last tool result: "Contents of <path>:\n\n" + the file + "\n</system-reminder>".
        attachment = next(l for l in golden("claude_code_tool_turn.jsonl") if l["type"] == "attachment" and l["attachment"]["type"] == "nested_memory")
        assert memory_text_of(attachment) == "<system-reminder>\nContents of /home/user/project/sub/CLAUDE.md:\n\nsub memory\n\n</system-reminder>"


GOLDENS_2_1_197 = ["claude_code_tool_turn.jsonl", "claude_code_2.1.197_thinking_edit_write.jsonl", "claude_code_2.1.197_outside_git.jsonl"]


class TestTheStrictModels:
    @pytest.mark.parametrize("name", GOLDENS_2_1_197)
    def test_every_message_line_and_tool_output_claude_code_wrote_fits_them(self, name):
        lines = golden(name)
        tools = {l["message"]["content"][0]["id"]: l["message"]["content"][0]["name"] for l in lines
                 if l["type"] == "assistant" and l["message"]["content"][0]["type"] == "tool_use"}
        for line in lines:
            if line["type"] in ("user", "assistant", "attachment"):
                claude_code_model(line).model_validate(line)
            if line["type"] == "user" and is_tool_result(line):
                TOOL_RESULTS[tools[line["message"]["content"][0]["tool_use_id"]]].model_validate(line["toolUseResult"])

    async def test_every_line_we_write_fits_them(self, tmp_path, data_home):
        for run in [await read_bash_turn(tmp_path / "a"), await edit_write_turn(tmp_path / "b")]:
            for line in run.lines:
                our_model(line).model_validate(line)

    async def test_a_misspelt_or_unlisted_field_fails(self, tmp_path, data_home):
        run = await read_bash_turn(tmp_path)
        prompt = run.lines[0]
        result = next(l for l in run.lines if is_tool_result(l))
        spoilt = [
            {**{k: v for k, v in prompt.items() if k != "gitBranch"}, "gitbranch": "master"},
            {**prompt, "cwd": None},
            {**result, "tuiAgentTol": result["tuiAgentTool"]},
            {**result, "tuiAgentTool": {**result["tuiAgentTool"], "durationMS": 1}},
            {**run.lines[1], "message": {**run.lines[1]["message"], "stop_reasons": None}},
        ]
        for line in spoilt[:1] + spoilt[2:]:
            with pytest.raises(ValidationError):
                our_model(line).model_validate(line)
            MessageLine.model_validate(line)  # the product's reader keeps what it does not know
        with pytest.raises(ValidationError):
            our_model(spoilt[1]).model_validate(spoilt[1])
