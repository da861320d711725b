"""The lazy import of the SDK (core/anthropic_import.py) gives every public name of `anthropic`, `anthropic.types`
and `anthropic.types.beta` as the very object an ordinary `import anthropic` gives, in a fresh process each;
it declines an `__init__.py` that does more than it knows; and it loads a fraction of the SDK's modules."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tui_agent.core.anthropic_import import reexports

PROBE = textwrap.dedent("""
    import json, re, sys, types
    if sys.argv[1] == "lazy":
        from tui_agent.core.anthropic_import import import_anthropic
        anthropic = import_anthropic()
    else:
        import anthropic
    loaded = len([m for m in sys.modules if m.startswith("anthropic")])
    import anthropic.types, anthropic.types.beta

    def signature(value):
        if isinstance(value, types.ModuleType):
            return ["module", value.__name__]
        if isinstance(value, type) or callable(value):
            return [type(value).__name__, getattr(value, "__module__", None), getattr(value, "__qualname__", None)]
        return [type(value).__name__, re.sub(" at 0x[0-9a-f]+", "", repr(value))[:200]]

    names = json.loads(sys.argv[2]) if len(sys.argv) > 2 else None
    out = {"loaded": loaded, "modules": {}}
    for module in (anthropic, anthropic.types, anthropic.types.beta):
        wanted = names[module.__name__] if names else sorted(n for n in dir(module) if n.isidentifier() and not n.startswith("_"))
        out["modules"][module.__name__] = {n: signature(getattr(module, n)) for n in wanted}
    print(json.dumps(out))
""")


def probe(mode: str, names: dict[str, list[str]] | None = None) -> dict:
    argv = [sys.executable, "-c", PROBE, mode] + ([json.dumps(names)] if names else [])
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def test_every_public_name_is_the_object_an_ordinary_import_gives() -> None:
    plain = probe("plain")
    names = {module: sorted(found) for module, found in plain["modules"].items()}
    assert len(names["anthropic"]) > 100 and len(names["anthropic.types"]) > 500 and len(names["anthropic.types.beta"]) > 500
    lazy = probe("lazy", names)
    for module, found in plain["modules"].items():
        differing = {n: (v, lazy["modules"][module][n]) for n, v in found.items() if lazy["modules"][module][n] != v}
        assert differing == {}, module
    # and it is lazy: a fraction of the SDK's modules at import
    assert lazy["loaded"] * 3 < plain["loaded"], (lazy["loaded"], plain["loaded"])


def test_a_package_that_does_more_than_re_export_loads_as_usual(tmp_path: Path) -> None:
    init = tmp_path / "__init__.py"
    init.write_text("from .a import A as A\nfrom .b import (\n    B as B,\n    C,\n)\n__all__ = ['A', 'B', 'C']\n")
    assert reexports(init) == {"A": ("a", "A"), "B": ("b", "B"), "C": ("b", "C")}
    init.write_text("from .a import A as A\nA.rebuild()\n")
    assert reexports(init) is None
    init.write_text("from .a import A as A\nimport os\n")
    assert reexports(init) is None
    init.write_text("from ..outside import A\n")
    assert reexports(init) is None


def test_the_top_level_accepts_only_the_statements_it_knows(tmp_path: Path) -> None:
    import anthropic

    real = Path(anthropic.__file__)
    exports = reexports(real, top_level=True)
    assert exports is not None and "AsyncAnthropic" in exports and "APIStatusError" in exports
    init = tmp_path / "anthropic" / "__init__.py"
    init.parent.mkdir()
    for extra in ("print('side effect')", "x = 1", "if True:\n    import os", "def f():\n    pass"):
        init.write_text("import typing as _t\nfrom ._client import AsyncAnthropic as AsyncAnthropic\n" + extra + "\n")
        assert reexports(init, top_level=True) is None, extra
