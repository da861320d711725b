"""Imports the first answer would otherwise pay for on the UI thread, done ahead on the core's thread.

Drawing the first streamed text imports Rich's Markdown, markdown-it (with linkify) and, at the first
code fence, Pygments' lexer table, a lexer and its formatter: tens of milliseconds of imports that
held up the keys typed as the answer began. The core's thread is idle between building the agent and
the first prompt, so it draws a small answer there, to a console of its own, and throws it away.

Then, in the real app (not in tests, where many apps share one interpreter), the objects made so far
(modules, classes, styles, the agent) are frozen out of the garbage collector's view: its full
collections scanned all of them every few seconds while an answer streamed, 250-500 ms with every
thread stopped, which was the worst key echo of a stream.
"""

from __future__ import annotations

import gc
import io
from typing import Any

SAMPLE = "# Title\n\nSome **bold**, `code` and a https://example.com link.\n\n```python\nx = [1, 2]\n```\n\n1. one\n- two\n"


def warm_up_drawing() -> None:
    from rich.console import Console

    from .widgets.block_markdown import BlockMarkdown
    from .widgets.cells import CODE_THEME, _builtin_languages_only

    console = Console(file=io.StringIO(), width=80, color_system="truecolor", force_terminal=True)
    console.print(BlockMarkdown(_builtin_languages_only(SAMPLE), code_theme=CODE_THEME))


async def freeze_the_start(model: Any) -> None:
    """Once the SDK is imported and the model's client made (both on the core's thread, before the first
    prompt needs them), keep everything start-up made out of later full collections."""
    from ..core.model import sdk_loaded

    try:
        await sdk_loaded()
        await model.client()
    except Exception:
        return  # the first request reports it
    gc.collect(1)  # the young garbage first
    gc.freeze()
