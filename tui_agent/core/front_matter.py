"""The YAML fields of a Markdown file's front matter (agents, commands, skills, output styles).

`yaml` is imported on the first file that has front matter: most runs read none, and the import is ~20 ms
of every start.
"""

from __future__ import annotations

from typing import Any


class FrontMatterError(ValueError):
    """Front matter that is not YAML, or not a mapping; the message says which, as Claude Code words it."""


def load_fields(front_matter: str) -> dict[str, Any]:
    """The fields between the `---` lines (empty front matter: no fields)."""
    import yaml

    try:
        fields = yaml.safe_load(front_matter) or {}
    except yaml.YAMLError as exc:
        raise FrontMatterError(f"invalid YAML front matter: {exc}") from None
    if not isinstance(fields, dict):
        raise FrontMatterError("the front matter must be a mapping of fields")
    return fields
