"""`/permissions`: the rules in force with their source file, and this session's grants to revoke."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


def rules_in_force(policy: Any) -> list[tuple[str, str, str]]:
    """(kind, rule, source) of the saved and command-line rules; session grants are listed apart."""
    rules = getattr(policy, "rules_in_force", None)
    if callable(rules):
        return [(k, r, s) for k, r, s in rules() if s != "session"]
    # SimplePolicy: only the command-line tool lists exist.
    out = [("deny", name, "--disallowedTools") for name in sorted(getattr(policy, "disallowed_tools", ()))]
    out += [("allow", name, "--allowedTools") for name in sorted(getattr(policy, "allowed_tools", ()))]
    return out


def session_grants(policy: Any) -> list[str]:
    rules = getattr(policy, "session_rules", None)
    if callable(rules):
        return list(rules())
    return sorted(getattr(policy, "session_allowed", ()))


def revoke_grant(policy: Any, rule: str) -> None:
    revoke = getattr(policy, "revoke_session_rule", None)
    if callable(revoke):
        revoke(rule)
    else:
        getattr(policy, "session_allowed", set()).discard(rule)


class PermissionsScreen(ModalScreen[None]):
    """The rules in force with their source file, and this session's grants (d revokes the highlighted)."""

    CSS = """
    PermissionsScreen {
        align: center middle;
        background: $background 50%;
    }
    PermissionsScreen #panel {
        width: 100%;
        max-width: 110;
        height: auto;
        max-height: 90%;
        padding: 0 1;
        border: round $accent;
        border-title-color: $accent;
        border-subtitle-color: $text-muted;
        background: $surface;
    }
    PermissionsScreen .heading {
        text-style: bold;
        margin: 1 0 0 0;
    }
    PermissionsScreen #rules {
        height: auto;
        max-height: 20;
    }
    PermissionsScreen #grants {
        height: auto;
        max-height: 12;
    }
    PermissionsScreen .empty {
        color: $text-muted;
    }
    """

    BINDINGS = [
        Binding("d,delete", "revoke", "Revoke"),
        Binding("escape,q", "close", "Close"),
    ]

    def __init__(self, policy: Any) -> None:
        super().__init__()
        self.policy = policy

    def compose(self) -> ComposeResult:
        with Vertical(id="panel") as panel:
            panel.border_title = f"Permissions · mode {getattr(self.policy, 'mode', 'default')}"
            panel.border_subtitle = "d revoke grant · esc close"
            yield Static("Rules in force", classes="heading")
            rules = rules_in_force(self.policy)
            with VerticalScroll(id="rules", can_focus=False):
                if rules:
                    width = max(len(r) for _, r, _ in rules)
                    for kind, rule, source in rules:
                        yield Static(Content(f"{kind:<6}{rule:<{width}}  {source}"))
                else:
                    yield Static("No rules: every call that changes something asks.", classes="empty")
            yield Static("Granted this session (until it ends)", classes="heading")
            yield OptionList(id="grants")
            yield Static("None.", id="no-grants", classes="empty")

    def on_mount(self) -> None:
        self._show_grants()

    def _show_grants(self) -> None:
        grants = session_grants(self.policy)
        options = self.query_one("#grants", OptionList)
        options.clear_options()
        options.add_options([Option(rule, id=rule) for rule in grants])
        options.display = bool(grants)
        self.query_one("#no-grants").display = not grants
        if grants:
            options.highlighted = 0
            options.focus()

    def action_revoke(self) -> None:
        options = self.query_one("#grants", OptionList)
        option = options.highlighted_option
        if option is None or option.id is None:
            return
        revoke_grant(self.policy, option.id)
        self.notify(f"Revoked {option.id}", markup=False)
        self._show_grants()

    def action_close(self) -> None:
        self.dismiss(None)
