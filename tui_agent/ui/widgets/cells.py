"""Drawing transcript items into lines (Strips), once per (item version, width).

Every item is drawn with a two-cell left gutter (a marker on its first line) so the transcript can mark
the selected item by painting over the first cell.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from rich.console import Console, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from ...core.shell_mode import MAX_SHOWN_LINES, OUTPUT_PATH_KEY
from .agent_cells import agent_body, is_agent_call, live_label
from .tool_calls import SANDBOX_LABEL, ToolCall
from .transcript_items import NoticeLine, ThinkingText, ToolCell, UserPrompt
from .visible_text import visible_line, visible_text

GUTTER = 2
RESULT_INDENT = 5  # "  └  " before a tool's result lines
COLLAPSED_PREVIEW_LINES = 3
COLLAPSED_DIFF_LINES = 12
COLLAPSED_COMMAND_ROWS = 8
"""A shell command's rows in its cell until enter expands it (a git commit's heredoc usually fits)."""
COLLAPSED_SHELL_LINES = 10
"""A `!` command's last output lines in its cell until enter expands it (the end is what one looks for)."""
EXPANDED_MAX_LINES = 400
CODE_THEME = "monokai"

# The language of a fenced code block: the first word after the fence.
_FENCE_LANGUAGE = re.compile(r"^( {0,3}(?:`{3,}|~{3,})[ \t]*)([^\s`]+)", re.MULTILINE)

STATUS_GLYPHS = {"ok": "✓", "error": "✗", "denied": "⊘", "cancelled": "■", "running": "●", "queued": "○", "waiting": "?"}


@dataclass(frozen=True)
class RenderContext:
    """What drawing needs: the console, the width and the theme's styles by role."""

    console: Console
    width: int
    styles: dict[str, Style]

    def style(self, role: str) -> Style:
        return self.styles.get(role, Style())

    @property
    def body_width(self) -> int:
        return max(10, self.width - GUTTER)


def to_strips(ctx: RenderContext, renderable: RenderableType, width: int) -> list[Strip]:
    options = ctx.console.options.update_width(width)
    lines = ctx.console.render_lines(renderable, options, pad=True)
    return [Strip(line, width) for line in lines]


def with_gutter(ctx: RenderContext, strips: list[Strip], marker: str = "", marker_role: str = "muted") -> list[Strip]:
    """Put `marker` (or blanks) in the gutter of the first line and blanks in the rest."""
    blank = Segment(" " * GUTTER)
    out = []
    for i, strip in enumerate(strips):
        head = Segment(marker.ljust(GUTTER), ctx.style(marker_role)) if i == 0 and marker else blank
        out.append(Strip([head, *strip], GUTTER + strip.cell_length))
    return out


def blank_line(ctx: RenderContext) -> Strip:
    return Strip.blank(ctx.width)


def render_markdown_block(ctx: RenderContext, source: str, first: bool) -> list[Strip]:
    return [Strip(line) for line in markdown_block_lines(ctx, source, first)]


Line = tuple[Segment, ...]
"""A drawn line kept compactly: a Strip holds seven caches, which the garbage collector would scan in
every full collection for each of the thousands of lines a long answer keeps."""


def markdown_block_lines(ctx: RenderContext, source: str, first: bool) -> list[Line]:
    """A Markdown block's lines, with the gutter (a marker on the first line when `first`)."""
    from .block_markdown import BlockMarkdown  # rich.markdown is ~40 ms to import: not before the first frame

    markdown = BlockMarkdown(_builtin_languages_only(source), code_theme=CODE_THEME)
    width = ctx.body_width
    lines = ctx.console.render_lines(markdown, ctx.console.options.update_width(width), pad=True)
    blank = Segment(" " * GUTTER)
    marker = Segment("●".ljust(GUTTER), ctx.style("text")) if first else blank
    return [(marker if i == 0 else blank, *line) for i, line in enumerate(lines)]


@functools.cache
def _builtin_lexer_names() -> frozenset[str]:
    from pygments.lexers._mapping import LEXERS

    return frozenset(alias for _module, _name, aliases, _files, _mimes in LEXERS.values() for alias in aliases)


def _builtin_languages_only(source: str) -> str:
    """Drop a code block's language unless Pygments has it built in (the block shows as plain text).

    Why: Pygments looks an unknown name up in its plugins, which imports every installed package that
    offers lexers (IPython's import all of IPython and prompt_toolkit: +25 MB, ~0.5 s on the UI's
    thread). While a fence streams in, its language is often a prefix ("pyt"), so this happened on
    almost every answer with code.
    """
    names = _builtin_lexer_names()
    return _FENCE_LANGUAGE.sub(lambda m: m.group(0) if m.group(2).lower() in names else m.group(1), source)


def render_user(ctx: RenderContext, item: UserPrompt) -> list[Strip]:
    text = Text(item.text.rstrip() or " ", style=ctx.style("user"))
    return with_gutter(ctx, to_strips(ctx, text, ctx.body_width), ">", "primary")


def render_thinking(ctx: RenderContext, item: ThinkingText) -> list[Strip]:
    redacted = f" + {item.redacted} redacted" if item.redacted else ""
    head = Text(f"∴ Thinking… ({len(item.text):,} chars{redacted})", style=ctx.style("thinking"))
    if not item.expanded:
        head.append("  enter to expand", style=ctx.style("muted"))
        return with_gutter(ctx, to_strips(ctx, head, ctx.body_width))
    body = Text(_clip_lines(item.text.strip(), EXPANDED_MAX_LINES), style=ctx.style("thinking"))
    return with_gutter(ctx, to_strips(ctx, head, ctx.body_width) + to_strips(ctx, body, ctx.body_width))


def render_notice(ctx: RenderContext, item: NoticeLine) -> list[Strip]:
    role, glyph = {
        "info": ("muted", "ℹ"),
        "warning": ("warning", "!"),
        "error": ("error", "✗"),
        "retry": ("warning", "⟳"),
        "interrupted": ("error", "└"),
        "done": ("muted", "✻"),
    }[item.kind]
    text = Text(item.text, style=ctx.style(role))
    return with_gutter(ctx, to_strips(ctx, text, ctx.body_width), glyph, role)


def render_tool(ctx: RenderContext, cell: ToolCell) -> list[Strip]:
    """`Name(what it does)  status`, then the result. A shell call's cell is the record of what ran, so it
    holds the whole command, wrapped, its lines as lines; other calls keep to one row."""
    call = cell.call
    status_role = {"ok": "ok", "error": "error", "denied": "warning", "cancelled": "muted"}.get(call.phase, "primary")
    # A shell command wraps, and a word too long for a row folds onto the next: nothing of it is cut.
    head = Text(no_wrap=not call.is_shell, overflow="fold" if call.is_shell else "ellipsis")
    head.append(visible_line(call.name), style=ctx.style("tool-name"))
    if subject := call.subject:
        head.append("(", style=ctx.style("text"))
        head.append_text(_visible(ctx, subject, "text", one_row=not call.is_shell))
        head.append(")", style=ctx.style("text"))
    head.append("  ")
    head.append(visible_line(_phase_label(call)), style=ctx.style(status_role))
    rows = to_strips(ctx, head, ctx.body_width)
    if call.is_shell:
        rows = _fold_rows(ctx, rows, EXPANDED_MAX_LINES if cell.expanded else COLLAPSED_COMMAND_ROWS, cell.expanded)
    lines = with_gutter(ctx, rows, STATUS_GLYPHS.get(call.phase, "●"), status_role)
    body = _tool_body(ctx, call, cell.expanded)
    if body is not None:
        lines += _result_indent(ctx, to_strips(ctx, body, ctx.width - RESULT_INDENT))
    return lines


def _visible(ctx: RenderContext, text: str, role: str, *, one_row: bool) -> Text:
    """Text from a model or a command's output: control characters as marks, never raw (visible_text)."""
    return visible_text(text, one_row=one_row, style=ctx.style(role), newline_style=ctx.style("primary"),
                        mark_style=ctx.style("error") + Style(reverse=True))


def _fold_rows(ctx: RenderContext, rows: list[Strip], keep: int, expanded: bool) -> list[Strip]:
    """At most `keep` rows: the first ones, a line saying how many are folded, and the last (the
    command's end and the call's status)."""
    if len(rows) <= keep:
        return rows
    hidden = len(rows) - (keep - 1)
    note = Text(f"… +{hidden} lines" + ("" if expanded else " (enter to expand)"), style=ctx.style("muted"))
    return rows[: keep - 2] + to_strips(ctx, note, ctx.body_width) + rows[-1:]


def _phase_label(call: ToolCall) -> str:
    """The call's state, and "sandboxed" for a shell command inside the OS sandbox (core/sandbox)."""
    label = _phase_word(call)
    return f"{label} · {SANDBOX_LABEL}" if call.sandboxed else label


def _phase_word(call: ToolCall) -> str:
    if call.phase == "queued":
        return "queued"
    if call.phase == "waiting":
        return "waiting for you"
    if call.phase == "running":
        return live_label(call) if is_agent_call(call) else "running…"
    duration = f" · {_seconds(call.elapsed(call.t_end or 0.0))}s" if call.t_start is not None and call.t_end is not None else ""
    return f"{call.phase}{duration}"


def _seconds(elapsed: float) -> str:
    """A duration to a tenth, from whole milliseconds: what the transcript records (`durationMs`), so a
    resumed cell shows the very figure the live one did. (The epsilon undoes float error: 0.249 s is
    248.99999… ms.)"""
    return f"{int(elapsed * 1000 + 1e-6) / 1000:.1f}"


def _result_indent(ctx: RenderContext, strips: list[Strip]) -> list[Strip]:
    out = []
    for i, strip in enumerate(strips):
        head = Segment("  └  " if i == 0 else " " * RESULT_INDENT, ctx.style("muted"))
        out.append(Strip([head, *strip], RESULT_INDENT + strip.cell_length))
    return out


def _tool_body(ctx: RenderContext, call: ToolCall, expanded: bool) -> RenderableType | None:
    if call.active:
        return None
    data: Any = call.data
    if call.name == "AskUserQuestion" and (asked := _question_body(ctx, call)) is not None:
        return asked
    if call.phase == "denied":
        said = f": “{call.denied_words}”" if call.denied_words else ""
        return Text(f"Denied{said}", style=ctx.style("warning"))
    if isinstance(data, dict) and data.get("type") == "diff" and call.phase == "ok":
        return _diff_text(ctx, str(data.get("path", "")), str(data.get("diff", "")), expanded)
    if isinstance(data, dict) and data.get("type") == "todos" and call.phase == "ok":
        return _todos_text(ctx, data.get("todos") or [])
    if isinstance(data, dict) and data.get("type") == "plan" and call.phase == "ok":
        return _plan_body(ctx, str(data.get("plan") or ""), str(data.get("mode") or ""), expanded)
    if is_agent_call(call) and (body := agent_body(call, expanded, ctx.style, lambda lines, exp, role: _collapsible(ctx, lines, COLLAPSED_PREVIEW_LINES, exp, role))) is not None:
        return body
    preview = call.preview.expandtabs(4).rstrip() or "(no output)"
    role = "error" if call.phase == "error" else "muted" if call.phase == "cancelled" else "text"
    if call.is_user_shell:
        return _shell_output(ctx, preview.splitlines(), call.data, expanded, role)
    return _collapsible(ctx, preview.splitlines(), COLLAPSED_PREVIEW_LINES, expanded, role)


def _shell_output(ctx: RenderContext, lines: list[str], data: Any, expanded: bool, role: str) -> Text:
    """A `!` command's output, whole (core/shell_mode.py): its last lines under "… +N lines"; enter shows
    them all, or, past what a cell draws, the last `MAX_SHOWN_LINES` and the file that holds every one."""
    shown = lines[-(MAX_SHOWN_LINES if expanded else COLLAPSED_SHELL_LINES):]
    text = _visible(ctx, "\n".join(shown), role, one_row=False)
    hidden = len(lines) - len(shown)
    if hidden > 0:
        path = data.get(OUTPUT_PATH_KEY) if isinstance(data, dict) else None
        if not expanded:
            note = f"… +{hidden} lines (enter to expand)"
        else:
            note = f"… +{hidden} earlier lines" + (f" · the whole output is in {path}" if path else "")
        text = Text(note + "\n", style=ctx.style("muted")).append_text(text)
    # Folded: a row per line, cut at the edge. Expanded: all of it, a word too long for a row folded.
    text.no_wrap, text.overflow = not expanded, "fold" if expanded else "ellipsis"
    return text


def _collapsible(ctx: RenderContext, lines: list[str], keep: int, expanded: bool, role: str) -> Text:
    shown = lines if expanded else lines[:keep]
    shown = shown[:EXPANDED_MAX_LINES]
    text = _visible(ctx, "\n".join(shown), role, one_row=False)
    text.no_wrap, text.overflow = not expanded, "ellipsis"
    hidden = len(lines) - len(shown)
    if hidden > 0:
        text.append(f"\n… +{hidden} lines (enter to expand)", style=ctx.style("muted"))
    return text


def _diff_text(ctx: RenderContext, path: str, diff: str, expanded: bool) -> Text:
    lines = [line for line in diff.splitlines() if not line.startswith(("---", "+++"))]
    added = sum(1 for line in lines if line.startswith("+"))
    removed = sum(1 for line in lines if line.startswith("-"))
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{visible_line(path)}  +{added} -{removed}\n", style=ctx.style("muted"))
    shown = lines if expanded else lines[:COLLAPSED_DIFF_LINES]
    for line in (l.expandtabs(4) for l in shown[:EXPANDED_MAX_LINES]):
        role = "diff-add" if line.startswith("+") else "diff-remove" if line.startswith("-") else "muted" if line.startswith("@@") else "text"
        text.append_text(_visible(ctx, line + "\n", role, one_row=False))
    hidden = len(lines) - len(shown)
    if hidden > 0:
        text.append(f"… +{hidden} lines (enter to expand)", style=ctx.style("muted"))
    text.rstrip()
    return text


def _todos_text(ctx: RenderContext, todos: list[Any]) -> Text:
    text = Text()
    for todo in todos:
        if not isinstance(todo, dict):
            continue
        status = todo.get("status", "pending")
        glyph, role = {"completed": ("☒", "muted"), "in_progress": ("◼", "primary")}.get(status, ("☐", "text"))
        style = ctx.style(role) + (Style(strike=True) if status == "completed" else Style())
        # The item being worked on reads as the todo panel shows it (widgets/todo_panel.py): "Running the tests…".
        active = todo.get("activeForm") if status == "in_progress" and isinstance(todo.get("activeForm"), str) else None
        words = visible_line(str(active or todo.get("content", "")))
        if active:  # one ellipsis, whether or not the model wrote one
            words = (words[:-3] if words.endswith("...") else words.rstrip("…")).rstrip() + "…"
        text.append(f"{glyph} {words}\n", style=style)
    text.rstrip()
    return text or Text("(no todos)", style=ctx.style("muted"))


def _plan_body(ctx: RenderContext, plan: str, mode: str, expanded: bool) -> RenderableType:
    """ExitPlanMode approved: the plan as Markdown (its first lines until enter expands it)."""
    from rich.console import Group

    from ..screens.plan import plan_markdown

    lines = plan.splitlines()
    shown = lines if expanded else lines[:COLLAPSED_DIFF_LINES]
    head = Text(f"User approved the plan{f' · mode {mode}' if mode else ''}", style=ctx.style("muted"))
    parts: list[RenderableType] = [head, plan_markdown("\n".join(shown))]
    if len(lines) > len(shown):
        parts.append(Text(f"… +{len(lines) - len(shown)} lines (enter to expand)", style=ctx.style("muted")))
    return Group(*parts)


def _question_body(ctx: RenderContext, call: ToolCall) -> Text | None:
    """AskUserQuestion's answers, or its decline, in Claude Code's words (None: the usual body)."""
    data, style = call.data, ctx.style
    if call.phase == "ok" and isinstance(data, dict) and data.get("type") == "questions":
        answers = data.get("answers") if isinstance(data.get("answers"), dict) else {}
        if not answers:
            return Text("The user did not answer the questions.", style=style("muted"))
        text = Text("User answered the questions:", style=style("text"))
        for question, answer in answers.items():
            text.append(f"\n· {visible_line(str(question))} → ", style=style("muted"))
            text.append(visible_line(str(answer)), style=style("text"))
        return text
    if call.phase == "denied" and not call.denied_words:
        questions = call.input.get("questions") if isinstance(call.input.get("questions"), list) else []
        text = Text("User declined to answer questions", style=style("warning"))
        for q in (q for q in questions if isinstance(q, dict)):
            labels = " / ".join(str(o.get("label", "")) for o in q.get("options") or [] if isinstance(o, dict))
            text.append(f"\n· {visible_line(str(q.get('question', '')))} ({visible_line(labels)})", style=style("muted"))
        return text
    return None


def _clip_lines(text: str, keep: int) -> str:
    lines = text.splitlines()
    return "\n".join(lines[:keep]) + (f"\n… +{len(lines) - keep} lines" if len(lines) > keep else "")
