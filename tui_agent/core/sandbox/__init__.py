"""The OS sandbox for shell commands (bubblewrap) from Claude Code's `sandbox` settings (DESIGN.md §7)."""
