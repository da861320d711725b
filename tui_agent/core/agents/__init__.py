"""Subagents: definitions (`.claude/agents/*.md`) and the runner of child agents (the Agent tool)."""
