"""Theme colours for widgets that draw their own lines: one rich Style per role, from component classes.

`get_component_rich_style(partial=True)` ignores alpha, so "$text-muted" (a translucent colour) would
come out as plain text colour; the full style blends it against the widget's background. The
background is then dropped unless the role is about background (a diff line, a selected row), so
role styles can be layered over each other.
"""

from __future__ import annotations

from typing import Iterable

from rich.style import Style
from textual.widget import Widget


def role_styles(widget: Widget, prefix: str, roles: Iterable[str], with_background: Iterable[str] = ()) -> dict[str, Style]:
    keep = set(with_background)
    styles = {}
    for role in roles:
        full = widget.get_component_rich_style(f"{prefix}--{role}", partial=False)
        if role in keep:
            styles[role] = full
        else:
            styles[role] = Style(
                color=full.color,
                bold=full.bold,
                italic=full.italic,
                underline=full.underline,
                strike=full.strike,
                reverse=full.reverse,
            )
    return styles


class RoleStyleCache:
    """`role_styles` kept between paints: resolving a component style walks the CSS (~0.3 ms a role),
    and a ticking line (the status line, the lanes) is painted ten times a second with styles that
    change only when the widget's styles do. The widget calls `forget` from `notify_style_update`."""

    def __init__(self, prefix: str, roles: Iterable[str], with_background: Iterable[str] = ()) -> None:
        self._prefix, self._roles, self._with_background = prefix, tuple(roles), tuple(with_background)
        self._styles: dict[str, Style] | None = None

    def get(self, widget: Widget) -> dict[str, Style]:
        if self._styles is None:
            self._styles = role_styles(widget, self._prefix, self._roles, self._with_background)
        return self._styles

    def forget(self) -> None:
        self._styles = None
