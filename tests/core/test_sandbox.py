"""The sandbox through the real loop, the real Bash tool and real bwrap (issue 25): Claude Code's settings
keys, and what the operating system then holds whatever the command line says.

Every command here is run by the scripted model with nobody to ask (headless): a command that runs at all
ran because the sandbox auto-allowed it, and one that asks is refused with "not granted"."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import pytest

from tests.core.sandbox_support import need_bwrap, outside_folder, processes_with, user_settings, write_json
from tui_agent.core.events import PermissionAsked, ToolFinished
from tui_agent.core.permission_types import PermissionAnswer
from tui_agent.core.sandbox.install import SandboxUnavailable
from tui_agent.providers.scripted import Reply, Text, ToolUse
from tui_agent.tools.registry import default_tools

ON = {"enabled": True, "autoAllowBashIfSandboxed": True}


@pytest.fixture(autouse=True)
def bwrap_here() -> None:
    need_bwrap()


@pytest.fixture
def outside() -> Any:
    yield from outside_folder()


def bash(command: str, id: str = "b", **extra: Any) -> Reply:
    return Reply([ToolUse("Bash", {"command": command, **extra}, id=id)])


async def run_one(make_harness, command: str, *, ask: Any = None, **extra: Any) -> tuple[Any, str]:
    """Run one Bash call headless; the harness and the tool_result text the next request carried."""
    h = make_harness([bash(command, **extra), Reply([Text("ok")])], tools=default_tools(), ask=ask)
    await h.agent.run("go")
    results = [b for b in h.requests[1]["messages"][-1]["content"] if b.get("type") == "tool_result"]
    content = results[0]["content"]
    text = content if isinstance(content, str) else "".join(c.get("text", "") for c in content)
    return h, text


def finished(h: Any) -> ToolFinished:
    return next(e for e in h.of(ToolFinished) if e.name == "Bash")


async def test_a_write_outside_the_workspace_fails_with_the_os_error_and_leaves_nothing(make_harness, tmp_path, outside) -> None:
    user_settings(tmp_path, {"sandbox": ON})
    h, text = await run_one(make_harness, f"echo x > {outside}/escaped.txt; touch {outside}/also; echo made > inside.txt")
    assert "Read-only file system" in text
    assert list(outside.iterdir()) == []
    assert (tmp_path / "work" / "inside.txt").read_text() == "made\n"  # the workspace stays writable
    assert h.of(PermissionAsked) == [] and h.agent.policy.denials == []
    assert finished(h).data["sandboxed"] is True


async def test_a_read_denied_file_cannot_be_read_and_never_reaches_a_request(make_harness, tmp_path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "secret.txt").write_text("the-secret-4f1c\n")
    (work / "keys").mkdir()
    (work / "keys" / "k").write_text("the-key-9a2e\n")
    # In the project's own local file, `keys` is relative to the project root (in ~/.claude/settings.json it
    # would be relative to ~/.claude, as in Claude Code).
    write_json(work / ".claude" / "settings.local.json",
               {"sandbox": {**ON, "filesystem": {"denyRead": ["keys"]}}, "permissions": {"deny": ["Read(./secret.txt)"]}})
    # Spelled so the parser cannot see the file: only the sandbox stands between the command and the secret.
    h, text = await run_one(make_harness, "cat $(printf secret.txt); ls keys; cat $(printf keys/k); echo done")
    assert text.count("Permission denied") == 3 and "done" in text, text
    sent = json.dumps(h.requests)
    assert "the-secret-4f1c" not in sent and "the-key-9a2e" not in sent
    assert (work / "secret.txt").read_text() == "the-secret-4f1c\n"


async def test_a_command_in_the_workspace_runs_without_asking(make_harness, tmp_path) -> None:
    user_settings(tmp_path, {"sandbox": ON})
    asked: list[Any] = []

    async def ask(request: Any) -> PermissionAnswer:
        asked.append(request)
        return PermissionAnswer("deny")

    h, text = await run_one(make_harness, "mkdir -p build && echo built > build/out.txt && cat build/out.txt", ask=ask)
    assert asked == [] and "built" in text
    assert (tmp_path / "work" / "build" / "out.txt").exists()


async def test_without_auto_allow_the_sandboxed_command_still_asks(make_harness, tmp_path) -> None:
    user_settings(tmp_path, {"sandbox": {"enabled": True, "autoAllowBashIfSandboxed": False}})
    h, text = await run_one(make_harness, "echo made > f.txt")
    assert "not granted" in text and not (tmp_path / "work" / "f.txt").exists()


async def test_an_excluded_command_runs_unsandboxed_and_asks(make_harness, tmp_path, outside) -> None:
    user_settings(tmp_path, {"sandbox": {**ON, "excludedCommands": ["touch *"]}})
    asked: list[Any] = []

    async def ask(request: Any) -> PermissionAnswer:
        asked.append(request)
        return PermissionAnswer("allow_once")

    h, text = await run_one(make_harness, f"touch {outside}/excluded", ask=ask)
    assert len(asked) == 1 and (outside / "excluded").exists()  # asked, then ran as the user's own command
    assert not (finished(h).data or {}).get("sandboxed")


async def test_dangerously_disable_sandbox_asks_when_allowed_and_is_ignored_when_not(make_harness, tmp_path, outside) -> None:
    user_settings(tmp_path, {"sandbox": ON})
    _, text = await run_one(make_harness, f"touch {outside}/a", dangerouslyDisableSandbox=True)
    assert "not granted" in text and not (outside / "a").exists()

    user_settings(tmp_path, {"sandbox": {**ON, "allowUnsandboxedCommands": False}})
    h, text = await run_one(make_harness, f"touch {outside}/b", dangerouslyDisableSandbox=True)
    assert "Read-only file system" in text and not (outside / "b").exists()
    assert finished(h).data["sandboxed"] is True


async def test_deny_and_ask_rules_still_win(make_harness, tmp_path) -> None:
    user_settings(tmp_path, {"sandbox": ON, "permissions": {"deny": ["Bash(rm *)"], "ask": ["Bash(echo *)"]}})
    _, text = await run_one(make_harness, "rm -rf x")
    assert "denied" in text
    _, text = await run_one(make_harness, "echo hi")
    assert "not granted" in text


async def test_escape_kills_the_sandboxed_process_tree(make_harness, tmp_path) -> None:
    user_settings(tmp_path, {"sandbox": ON})
    mark = f"SBX_TREE_{uuid.uuid4().hex}"
    command = f"export {mark}=1; (sleep 60 &) ; setsid sleep 60 & sleep 60"
    h = make_harness([bash(command), Reply([Text("ok")])], tools=default_tools())
    run = asyncio.create_task(h.agent.run("go"))
    for _ in range(200):
        if len(processes_with(f"{mark}=1")) >= 3:
            break
        await asyncio.sleep(0.02)
    assert len(processes_with(f"{mark}=1")) >= 3
    h.agent.abort()
    await run
    for _ in range(100):
        if not processes_with(f"{mark}=1"):
            break
        await asyncio.sleep(0.02)
    assert processes_with(f"{mark}=1") == []


async def test_background_shells_run_inside_too(make_harness, tmp_path, outside) -> None:
    user_settings(tmp_path, {"sandbox": ON})
    script = [bash(f"touch {outside}/bg; echo bg-done", run_in_background=True),
              Reply([ToolUse("BashOutput", {"bash_id": "bash_1"}, id="o")]), Reply([Text("ok")])]
    h = make_harness(script, tools=default_tools())
    await h.agent.run("go")
    shells = h.agent.context.services["background_shells"]
    await shells.get("bash_1").shell.wait_exit()
    assert not (outside / "bg").exists()
    assert finished(h).data["sandboxed"] is True
    await h.agent.close()


async def test_fail_if_unavailable_stops_with_the_missing_piece(make_harness, tmp_path, monkeypatch) -> None:
    from tui_agent.core.sandbox import availability

    monkeypatch.setenv("TUI_AGENT_BWRAP", str(tmp_path / "no" / "bwrap"))
    availability.forget()
    user_settings(tmp_path, {"sandbox": {**ON, "failIfUnavailable": True}})
    with pytest.raises(SandboxUnavailable) as raised:
        make_harness([Reply([Text("ok")])], tools=default_tools())
    assert "bwrap" in str(raised.value.code) and "apt-get install bubblewrap" in str(raised.value.code)


async def test_unavailable_without_fail_warns_once_and_auto_allow_is_off(make_harness, tmp_path, monkeypatch) -> None:
    from tui_agent.core.sandbox import availability

    monkeypatch.setenv("TUI_AGENT_BWRAP", str(tmp_path / "no" / "bwrap"))
    availability.forget()
    user_settings(tmp_path, {"sandbox": ON})
    h, text = await run_one(make_harness, "echo made > f.txt")
    assert "not granted" in text and not (tmp_path / "work" / "f.txt").exists()
    warnings = [e for e in h.events if getattr(e, "level", "") == "warning" and "sandbox" in getattr(e, "text", "")]
    assert len(warnings) == 1 and "bwrap" in warnings[0].text
    state = h.agent.context.services["sandbox"].state()
    assert state.enabled and not state.available and "bwrap" in (state.why_not or "")


async def test_the_session_switch_and_the_state(make_harness, tmp_path, outside) -> None:
    user_settings(tmp_path, {"sandbox": {**ON, "filesystem": {"allowWrite": [str(outside)]}}})
    h = make_harness([Reply([Text("ok")])], tools=default_tools())
    sandbox = h.agent.context.services["sandbox"]
    state = sandbox.state()
    assert state.active and str(outside) in state.writable and str(tmp_path / "work") in state.writable
    assert not sandbox.set_enabled(False).active
    assert sandbox.set_enabled(None).active


async def test_a_project_file_cannot_widen_before_trust(tmp_path) -> None:
    from tui_agent.core.sandbox.settings import sandbox_layer

    layer = sandbox_layer({"sandbox": {"enabled": False, "autoAllowBashIfSandboxed": True, "filesystem": {"allowWrite": ["/"], "denyRead": ["x"]}}},
                          "p", tmp_path, tmp_path)
    assert layer is not None
    kept = layer.until_trusted()
    assert kept.enabled is None and kept.auto_allow is None and kept.allow_write == () and kept.deny_read == (tmp_path / "x",)


@pytest.fixture(autouse=True)
def _fresh_probe() -> Any:
    from tui_agent.core.sandbox import availability

    yield
    availability.forget()



async def test_a_bang_command_is_the_users_own_and_runs_unsandboxed(make_harness, tmp_path, outside) -> None:
    from tui_agent.core.shell_mode import ShellCommand

    user_settings(tmp_path, {"sandbox": ON})
    h = make_harness([Reply([Text("ok")])], tools=default_tools())
    await ShellCommand(h.agent, f"touch {outside}/by-the-user").run()
    assert (outside / "by-the-user").exists()


async def test_a_contained_command_cannot_plant_what_runs_unsandboxed_later(make_harness, tmp_path) -> None:
    """Settings that would allow everything, a git hook, even with the hooks folder moved aside first."""
    work = tmp_path / "work"
    (work / ".git" / "hooks").mkdir(parents=True)
    (work / ".git" / "config").write_text("[core]\n")
    user_settings(tmp_path, {"sandbox": ON})
    planted = ("mkdir -p .claude; echo '{\"permissions\": {\"allow\": [\"Bash\"]}}' > .claude/settings.local.json; "
               "echo evil > .git/hooks/pre-commit; mv .git/hooks .git/h2; mv .git g2; "
               "mkdir -p .git/hooks && echo evil > .git/hooks/post-checkout; echo '[core] x' >> .git/config; echo tried")
    h, text = await run_one(make_harness, planted)
    assert "tried" in text and "Read-only file system" in text
    assert not (work / ".claude" / "settings.local.json").exists()
    assert list((work / ".git" / "hooks").iterdir()) == [] and (work / ".git" / "config").read_text() == "[core]\n"
    assert sorted(p.name for p in work.iterdir()) == [".claude", ".git"]


async def test_the_network_only_through_the_proxy_and_only_to_allowed_hosts(make_harness, tmp_path) -> None:
    """A local HTTP server stands for the internet: named in allowedDomains it answers through the session's
    proxy; directly (the sandbox's own loopback) and under a name not allowed, nothing gets through."""
    import http.server
    import os
    import sys
    import threading

    class Hello(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"hello-from-the-allowed-host"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    user_settings(tmp_path, {"sandbox": {**ON, "network": {"allowedDomains": [f"localhost:{port}"]}}})
    # urllib would send a loopback name around the proxy (NO_PROXY): this client asks the proxy for everything.
    fetch = ("import os, sys, urllib.request as u\n"
             "for name in ('NO_PROXY', 'no_proxy'): os.environ.pop(name, None)\n"
             "proxy = u.ProxyHandler({'http': os.environ['HTTP_PROXY']})\n"
             "for url, opener in [(sys.argv[1], u.build_opener(proxy)), (sys.argv[2], u.build_opener(proxy)),"
             " (sys.argv[3], u.build_opener(u.ProxyHandler({})))]:\n"
             "    try: print('OK', opener.open(url, timeout=5).read().decode())\n"
             "    except Exception as e: print('FAILED', url, type(e).__name__)\n")
    (tmp_path / "work").mkdir(exist_ok=True)
    (tmp_path / "work" / "fetch.py").write_text(fetch)
    try:
        h, text = await run_one(make_harness, f"{os.path.realpath(sys.executable)} fetch.py http://localhost:{port}/ "
                                              f"http://example.com/ http://127.0.0.1:{port}/")
    finally:
        server.shutdown()
    assert "OK hello-from-the-allowed-host" in text, text
    assert "FAILED http://example.com/" in text and f"FAILED http://127.0.0.1:{port}/" in text
    await h.agent.close()
