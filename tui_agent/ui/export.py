"""`/export [file]` in the app: writes the conversation's Markdown (core/export.py) and says where."""

from __future__ import annotations

from .host import CommandHost


async def export_command(app: CommandHost, arg: str) -> None:
    from ..core.export import export_conversation

    agent = app.agent
    if agent.running:
        app.notify("The agent is working: wait for it or press Esc before /export.", severity="warning", markup=False)
        return
    try:
        path = export_conversation(list(agent.history), arg, agent.workspace.root, model=agent.model.config.model)
    except OSError as exc:
        app.notify(f"Failed to export conversation: {exc}", severity="error", markup=False)
        return
    app.show_notice(f"Conversation exported to: {path}")
