"""Textual's parsed stylesheets, kept from one start to the next.

Every start, Textual tokenizes and parses the app's style files and the DEFAULT_CSS of every widget
on the first screen (~20 ms on a small machine, before the first frame). Its stylesheet keeps what it
parsed in a cache keyed by the CSS text itself (and where it was read from, and its scope); this
module saves that cache after the first frame and puts it back before the next start's first parse.

It stays correct when things change: an entry is found only for the very same CSS text, so an edited
style file or widget is parsed anew; the saved cache is used only with the same theme variables
(substituted while parsing), the same installed Textual and Rich and the same Python. A file that
cannot be read is ignored and written again. It lives in the user's cache folder (platformdirs).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any

CACHE_APP = "tui-agent"


def cache_file() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir(CACHE_APP)) / "textual-css.pickle"


def _fingerprint(variables: dict[str, str]) -> str:
    """What the saved objects depend on besides the CSS text: the theme's variables, and the code that
    made them (Textual and Rich as installed: an upgrade rewrites their files; `textual.__version__`
    would read the package metadata, ~20 ms), and Python's version."""
    import rich
    import textual

    installed = [(path, os.stat(path).st_mtime_ns) for path in (textual.__file__, rich.__file__) if path]
    return hashlib.sha256(repr((sorted(variables.items()), installed, sys.version_info[:2])).encode()).hexdigest()


class CssCache:
    """The parsed stylesheets of the last start, for one stylesheet of this start."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._loaded: set[Any] = set()

    def load_into(self, stylesheet: Any) -> int:
        """Put the saved entries into `stylesheet`'s parse cache (before it parses); how many."""
        try:
            with open(self.path, "rb") as file:
                saved = pickle.load(file)
            if saved.get("variables") != _fingerprint(stylesheet._variables):
                return 0
            entries = saved["entries"]
            for key, rules in entries.items():
                stylesheet._parse_cache[key] = rules
        except Exception:
            return 0  # missing, unreadable or from other code: parsed as usual, written again after
        self._loaded = set(entries)
        return len(entries)

    def save_from(self, stylesheet: Any) -> bool:
        """After the first frame: write what the stylesheet's sources parse to, unless the file holds
        exactly that already (entries of sources gone, an edited style's old text, are dropped)."""
        try:
            sources = stylesheet.source
            entries = {}
            for key in stylesheet._parse_cache.keys():
                css, read_from, is_defaults, _tie_breaker, scope = key  # a source's tie breaker may drop later
                source = sources.get(read_from)
                if source is not None and (source.content, source.is_defaults, source.scope) == (css, is_defaults, scope):
                    entries[key] = stylesheet._parse_cache.get(key)
            if not entries or set(entries) == self._loaded:
                return False
            data = pickle.dumps({"variables": _fingerprint(stylesheet._variables), "entries": entries},
                                protocol=pickle.HIGHEST_PROTOCOL)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".css-", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as file:
                    file.write(data)
                os.replace(temporary, self.path)  # whole or not at all, even with two starts at once
            except BaseException:
                os.unlink(temporary)
                raise
        except Exception:
            return False  # a cache: failing to write it only costs the next start the parse
        self._loaded = set(entries)
        return True
