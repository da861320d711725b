"""Entry point: the full-screen app by default, `-p` for headless runs (Claude Code's flags).

Start-up matters here: the SDK import (~1-2 s) begins in a background thread before anything else,
and nothing heavy is imported until the chosen mode needs it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import NoReturn, Sequence

from . import gc_pause
from .process_exit import end_process_now


def _preload() -> None:
    from .core.model import preload_sdk

    preload_sdk()


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One clear line, not a usage dump.
        self.exit(2, f"tui-agent: error: {message} (see tui-agent --help)\n")


def split_rules(values: Sequence[str] | None) -> list[str]:
    """`--allowedTools "Bash(git log *)" Read,Edit` → each rule; commas and spaces inside (...) stay."""
    out: list[str] = []
    for value in values or []:
        depth, cur = 0, ""
        for ch in value:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth = max(0, depth - 1)
            if ch in ", " and depth == 0:
                if cur.strip():
                    out.append(cur.strip())
                cur = ""
            else:
                cur += ch
        if cur.strip():
            out.append(cur.strip())
    return out


def tools_flag(values: Sequence[str] | None) -> list[str] | None:
    """`--tools Read,Grep` → those tools; `--tools ""` → none; `--tools default` (or no flag) → all."""
    if values is None:
        return None
    names = split_rules(values)
    return None if names == ["default"] else names


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="tui-agent", description="A terminal coding agent. Without -p: the full-screen app.")
    p.add_argument("prompt", nargs="?", help="the prompt (headless with -p; read from stdin when omitted)")
    p.add_argument("-p", "--print", dest="print_mode", action="store_true", help="run headless: answer and exit")
    p.add_argument("--output-format", choices=["text", "json", "stream-json"], default="text")
    p.add_argument("--verbose", action="store_true", help="more detail (tool starts and ends on stderr)")
    p.add_argument("--max-turns", type=int, help="at most this many model requests")
    p.add_argument("--max-budget-usd", type=float, help="stop when the cost reaches this many dollars")
    p.add_argument("--model", help="model name (default: $ANTHROPIC_MODEL or a current Sonnet)")
    p.add_argument("--permission-mode", choices=["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"])
    p.add_argument("--dangerously-skip-permissions", action="store_true", help="same as --permission-mode bypassPermissions")
    p.add_argument("--allowedTools", "--allowed-tools", dest="allowed_tools", nargs="+", action="extend", help="rules that allow without asking")
    p.add_argument("--disallowedTools", "--disallowed-tools", dest="disallowed_tools", nargs="+", action="extend", help="rules that deny")
    p.add_argument("--tools", nargs="+", action="extend", help="only these built-in tools")
    p.add_argument("--system-prompt", help="replace the system prompt")
    p.add_argument("--append-system-prompt", help="add to the system prompt")
    p.add_argument("--settings", help="an extra settings file, or its JSON")
    p.add_argument("--add-dir", dest="add_dirs", type=Path, action="append", help="another folder the tools may use")
    p.add_argument("--session-id", help="use this session id (a UUID)")
    p.add_argument("-c", "--continue", dest="continue_session", action="store_true", help="continue the most recent session of this directory")
    p.add_argument("-r", "--resume", nargs="?", const="", metavar="ID_OR_NAME", help="resume a session (ours or Claude Code's); without an id the app shows a picker")
    p.add_argument("--fork-session", action="store_true", help="with --resume or --continue: carry on in a new session")
    p.add_argument("-n", "--name", dest="session_name", help="name this session")
    p.add_argument("--mcp-config", dest="mcp_config", nargs="+", action="extend", help="MCP server configs: JSON files or strings")
    p.add_argument("--strict-mcp-config", action="store_true", help="use only the --mcp-config servers")
    p.add_argument("--demo", action="store_true", help="use the built-in demo model (no API key needed)")
    from .version import VersionAction

    p.add_argument("-v", "--version", action=VersionAction)
    from .protocol.flags import add_sdk_flags

    add_sdk_flags(p)
    return p


_headless = False
"""Set when this process ran `-p` or the SDK's protocol: nothing is left to do after `main` returns."""


def entry() -> NoReturn:
    """The `tui-agent` command: `main`, then a headless run's process ends without the interpreter's
    teardown (process_exit.py); the app's ends as usual."""
    code = main()
    if _headless:
        end_process_now(code)
    sys.exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    gc_pause.pause()  # start-up makes little garbage; the app resumes collecting after its first frame
    try:
        return _main(argv)
    finally:
        gc_pause.resume()


def _main(argv: Sequence[str] | None) -> int:
    global _headless
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.max_turns is not None and args.max_turns < 1:
        parser.error("--max-turns must be at least 1")
    if args.max_thinking_tokens is not None and args.max_thinking_tokens < 0:
        parser.error("--max-thinking-tokens must not be negative")
    if args.max_budget_usd is not None and args.max_budget_usd <= 0:
        parser.error("--max-budget-usd must be more than 0")
    for d in args.add_dirs or []:
        if not d.is_dir():
            parser.error(f"--add-dir {d}: not a folder")
    from .protocol.flags import settings_flag

    settings_value = settings_flag(args.settings, parser.error)  # a file, or JSON parsed in memory
    settings_file = settings_value if isinstance(settings_value, Path) else None
    settings_json = settings_value if isinstance(settings_value, dict) else None
    from .core.trust import SettingSourcesError, parse_setting_sources

    try:
        setting_sources = parse_setting_sources(args.setting_sources)
    except SettingSourcesError as exc:
        parser.error(str(exc))
    protocol = args.input_format == "stream-json"
    if protocol and args.output_format != "stream-json":
        parser.error("--input-format stream-json needs --output-format stream-json")
    system_prompt = args.system_prompt
    if args.system_prompt_file is not None:
        try:
            system_prompt = args.system_prompt_file.read_text(encoding="utf-8")
        except OSError as exc:
            parser.error(f"--system-prompt-file {args.system_prompt_file}: {exc.strerror or exc}")

    if args.mcp_config:
        from .core.mcp.config import McpConfigError, load_dynamic

        try:
            load_dynamic(args.mcp_config, Path.cwd(), os.environ)
        except McpConfigError as exc:
            parser.error(str(exc))

    from .raw_settings import INVALID_SESSION_ID, RawSettings, is_uuid

    if args.session_id is not None and not is_uuid(args.session_id):
        sys.stderr.write(f"Error: {INVALID_SESSION_ID}\n")  # Claude Code's words and exit status
        return 1

    json_schema = None
    if args.json_schema is not None:  # checked before anything starts, as Claude Code does
        from .core.structured_output import SchemaProblem, load_schema

        try:
            json_schema = load_schema(args.json_schema)
        except SchemaProblem as exc:
            sys.stderr.write(f"Error: {exc}\n")
            return 1
    mode = "bypassPermissions" if args.dangerously_skip_permissions else args.permission_mode
    requested = RawSettings.from_env(
        model=args.model,
        demo=args.demo or None,
        add_dirs=args.add_dirs,
        max_turns=args.max_turns,
        max_budget_usd=args.max_budget_usd,
        permission_mode=mode,
        allowed_tools=split_rules(args.allowed_tools) or None,
        disallowed_tools=split_rules(args.disallowed_tools) or None,
        tools=tools_flag(args.tools),
        system_prompt=system_prompt,
        append_system_prompt=args.append_system_prompt,
        settings_file=settings_file,
        settings_json=settings_json,
        session_id=args.session_id,
        resume=args.resume,
        continue_session=args.continue_session,
        fork_session=args.fork_session,
        session_name=args.session_name,
        model_pinned=bool(args.model or os.environ.get("ANTHROPIC_MODEL")),
        mcp_config=args.mcp_config,
        setting_sources=setting_sources,
        strict_mcp_config=args.strict_mcp_config or None,
        thinking=args.thinking,
        max_thinking_tokens=args.max_thinking_tokens,
        thinking_display=args.thinking_display,
    )

    if args.fork_session and args.resume is None and not args.continue_session:
        parser.error("--fork-session needs --resume or --continue")
    if (args.print_mode or protocol) and args.resume == "":
        parser.error("--resume needs a session id or name with -p or --input-format stream-json")
    opened = None
    # The app opens a plain new session itself, after its first frame (opening imports the core); the
    # flags that can fail (-r ID, -c, --session-id) are checked here, so a bad one exits at once.
    app_opens = not (args.print_mode or protocol) and args.resume is None and not args.continue_session and args.session_id is None
    if app_opens:
        from .ui.app import run_app  # validates the settings itself, right after its first frame

        return run_app(requested, initial_prompt=args.prompt)
    try:
        settings = requested.validate()
    except ValueError as exc:  # pydantic's ValidationError
        parser.error(str(exc).replace("\n", " "))
    if args.resume != "":  # the app's picker opens the session itself
        from .core.session import NoConversationFound
        from .core.session.lock import SessionBusy
        from .factory import open_settings_session

        try:  # headless front ends fork a session another process is writing; the app asks (session_busy.py)
            opened = open_settings_session(settings, busy="fork" if args.print_mode or protocol else "raise")
        except SessionBusy:
            opened = None
        except NoConversationFound as exc:
            sys.stderr.write(f"{exc}\n")
            return 1
        except ValueError as exc:
            sys.stderr.write(f"Error: {exc}\n")
            return 1

    if protocol:
        if not settings.demo and not settings.has_endpoint:
            sys.stderr.write("tui-agent: error: no ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL) is set; set one, or pass --demo for the built-in demo model\n")
            return 2
        import asyncio

        from .protocol import ProtocolOptions, run_protocol

        options = ProtocolOptions.from_args(args, json_schema=json_schema)
        gc_pause.resume()
        _headless = True
        return asyncio.run(run_protocol(settings, options, opened=opened))

    if args.print_mode:
        # Headless: the SDK loads while the prompt is read. The app starts it after its first frame
        # instead (the agent is built on the core's thread), where it cannot delay that frame.
        _preload()
        prompt = args.prompt
        if prompt is None and not sys.stdin.isatty():
            prompt = sys.stdin.read()
        if not prompt or not prompt.strip():
            parser.error("no prompt: give one after -p or on stdin")
        if not settings.demo and not settings.has_endpoint:
            sys.stderr.write("tui-agent: error: no ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL) is set; set one, or pass --demo for the built-in demo model\n")
            return 2
        import asyncio

        from .headless import run_headless

        gc_pause.resume()
        _headless = True
        return asyncio.run(run_headless(settings, prompt, args.output_format, args.verbose, opened=opened, partial=bool(getattr(args, "include_partial_messages", False)),
                                        json_schema=json_schema))

    from .ui.app import run_app

    return run_app(settings, initial_prompt=args.prompt, opened=opened)


if __name__ == "__main__":  # pragma: no cover
    entry()
