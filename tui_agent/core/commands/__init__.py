"""Custom slash commands (`.claude/commands/**/*.md`) and user-invoked skills, as Claude Code runs them."""

from .expansion import expand_command
from .loading import CustomCommand, commands_info, load_commands, split_front_matter

__all__ = ["CustomCommand", "commands_info", "expand_command", "load_commands", "split_front_matter"]
