"""The lazy import of the SDK and of the MCP client (core/lazy_import.py) gives every public name of `anthropic`,
`anthropic.types`, `anthropic.types.beta`, `mcp` and `mcp.client` as the very object an ordinary import gives, in
a fresh process each; it declines an `__init__.py` that does more than it knows; and it loads a fraction of the
packages' modules (for MCP: the client's, not the server's)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tui_agent.core.lazy_import import reexports

PROBE = textwrap.dedent("""
    import importlib, json, re, sys, types
    root, mode = sys.argv[1], sys.argv[2]
    if mode == "lazy":
        from tui_agent.core.lazy_import import import_lazily
        package = import_lazily(root)
    else:
        package = importlib.import_module(root)
    if root == "mcp":  # what an MCP session imports (core/mcp/connection.py)
        import mcp.client.sse, mcp.client.stdio, mcp.client.streamable_http
    loaded = sorted(m for m in sys.modules if m.partition(".")[0] == root)
    inspected = {"anthropic": ["anthropic", "anthropic.types", "anthropic.types.beta"], "mcp": ["mcp", "mcp.client"]}[root]

    def signature(value):
        if isinstance(value, types.ModuleType):
            return ["module", value.__name__]
        if isinstance(value, type) or callable(value):
            return [type(value).__name__, getattr(value, "__module__", None), getattr(value, "__qualname__", None)]
        return [type(value).__name__, re.sub(" at 0x[0-9a-f]+", "", repr(value))[:200]]

    names = json.loads(sys.argv[3]) if len(sys.argv) > 3 else None
    out = {"loaded": loaded, "modules": {}}
    for module in map(importlib.import_module, inspected):
        wanted = names[module.__name__] if names else sorted(n for n in dir(module) if n.isidentifier() and not n.startswith("_"))
        out["modules"][module.__name__] = {n: signature(getattr(module, n)) for n in wanted}
    print(json.dumps(out))
""")


def probe(root: str, mode: str, names: dict[str, list[str]] | None = None) -> dict:
    argv = [sys.executable, "-c", PROBE, root, mode] + ([json.dumps(names)] if names else [])
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def same_names(root: str) -> tuple[dict, dict]:
    """Both imports in fresh processes; every public name the ordinary one has must be the same object lazily."""
    plain = probe(root, "plain")
    names = {module: sorted(found) for module, found in plain["modules"].items()}
    lazy = probe(root, "lazy", names)
    for module, found in plain["modules"].items():
        differing = {n: (v, lazy["modules"][module][n]) for n, v in found.items() if lazy["modules"][module][n] != v}
        assert differing == {}, module
    return plain, lazy


def test_every_public_name_of_the_sdk_is_the_object_an_ordinary_import_gives() -> None:
    plain, lazy = same_names("anthropic")
    assert len(plain["modules"]["anthropic"]) > 100 and len(plain["modules"]["anthropic.types"]) > 500
    assert len(plain["modules"]["anthropic.types.beta"]) > 500
    # and it is lazy: a fraction of the SDK's modules at import
    assert len(lazy["loaded"]) * 3 < len(plain["loaded"]), (len(lazy["loaded"]), len(plain["loaded"]))


def test_every_public_name_of_mcp_is_the_object_an_ordinary_import_gives_and_a_session_loads_no_server() -> None:
    plain, lazy = same_names("mcp")
    assert {"ClientSession", "MCPError", "stdio_client", "types", "Client"} <= set(plain["modules"]["mcp"])
    assert "ClientSession" in plain["modules"]["mcp.client"]
    assert "mcp.server.lowlevel.server" in plain["loaded"]  # an ordinary import loads the server too
    assert not any(m.startswith("mcp.server") for m in lazy["loaded"]), lazy["loaded"]
    assert len(lazy["loaded"]) * 2 < len(plain["loaded"]), (len(lazy["loaded"]), len(plain["loaded"]))


def test_a_package_that_does_more_than_re_export_loads_as_usual(tmp_path: Path) -> None:
    init = tmp_path / "__init__.py"
    init.write_text('"""Doc."""\nfrom .a import A as A\nfrom .b import (\n    B as B,\n    C,\n)\nfrom pkg.c import D\nfrom other import E as F\n'
                    "from . import sub\n__all__ = ['A', 'B', 'C']\n")
    assert reexports(init, "pkg") == {
        "A": ("pkg.a", "A"), "B": ("pkg.b", "B"), "C": ("pkg.b", "C"), "D": ("pkg.c", "D"), "F": ("other", "E"), "sub": ("pkg", "sub"),
    }
    for other_statement in ("A.rebuild()", "import os", '"a string after the first statement"'):
        init.write_text(f"from .a import A as A\n{other_statement}\n")
        assert reexports(init, "pkg") is None, other_statement
    for unknown_import in ("from ..outside import A", "from other import *"):
        init.write_text(unknown_import + "\n")
        assert reexports(init, "pkg") is None, unknown_import


def test_the_top_level_accepts_only_the_statements_it_knows(tmp_path: Path) -> None:
    import anthropic

    real = Path(anthropic.__file__)
    exports = reexports(real, "anthropic", top_level=True)
    assert exports is not None and "AsyncAnthropic" in exports and "APIStatusError" in exports
    init = tmp_path / "anthropic" / "__init__.py"
    init.parent.mkdir()
    for extra in ("print('side effect')", "x = 1", "if True:\n    import os", "def f():\n    pass"):
        init.write_text("import typing as _t\nfrom ._client import AsyncAnthropic as AsyncAnthropic\n" + extra + "\n")
        assert reexports(init, "anthropic", top_level=True) is None, extra
