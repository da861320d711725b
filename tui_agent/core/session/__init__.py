"""Sessions that last: transcript lines in Claude Code's shape, resume / continue / fork, the session
index (ours and Claude Code's), and project memory (CLAUDE.md, AGENTS.md, @imports)."""

from .paths import data_home, project_slug
from .reader import Conversation, load
from .resume import NoConversationFound, OpenedSession, open_session
from .writer import Session

__all__ = ["Conversation", "NoConversationFound", "OpenedSession", "Session", "data_home", "load", "open_session", "project_slug"]
