"""Which dialog answers an ask: the permission dialog, unless the tool's call is itself a question to
the person (AskUserQuestion, ExitPlanMode, EnterPlanMode), which has a dialog of its own.

A dialog is a modal screen that dismisses with a `PermissionAnswer` (allowed, with `updated_input`
carrying what the person chose) or None (withdrawn). Dialog modules register a factory here at import.
"""

from __future__ import annotations

from typing import Any, Callable

from textual.screen import ModalScreen

from ..core.permission_types import PermissionAnswer, PermissionRequest

AskDialog = Callable[[PermissionRequest, Any], "ModalScreen[PermissionAnswer | None]"]
"""(the request, the permission policy) → the screen that answers it."""

_DIALOGS: dict[str, AskDialog] = {}


def register(tool_name: str, dialog: AskDialog) -> None:
    _DIALOGS[tool_name] = dialog


def dialog_for(tool_name: str) -> AskDialog | None:
    _load()
    return _DIALOGS.get(tool_name)


def _load() -> None:
    """Import the dialog modules (each registers itself); imported late, they stay off start-up."""
    import importlib

    for name in _MODULES:
        importlib.import_module(f"{__package__}.screens.{name}")


_MODULES: list[str] = ["plan", "question"]  # modules under ui/screens/ that register a dialog
