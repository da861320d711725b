"""Whether a server-side tool (the API's `web_search`) may be offered in the next request.

The API runs such a tool itself: once the request is sent, no call of it can be asked about or stopped. So
it is offered only while the rules would let it run unasked: a deny or an ask rule naming the tool (bare or
with a specifier: no query is known in advance), or `--disallowedTools`, keeps it out of the request. No
rule: the engine's default for a read-only tool (allow), as the app and `-p` have always offered it.
Checked per request, so a rule added mid-session applies to the next one.
"""

from __future__ import annotations

from typing import Any


def server_tool_offered(policy: Any, tool_name: str) -> bool:
    """True when no deny or ask rule (or --disallowedTools) names `tool_name`."""
    store = getattr(policy, "settings", None)
    rules = getattr(store, "rules", None)
    if callable(rules):
        return not any(rule.tool == tool_name for kind in ("deny", "ask") for rule in rules(kind))
    return tool_name not in getattr(policy, "disallowed_tools", ())  # SimplePolicy: flags only
