"""`import anthropic` and `import mcp` at a fraction of the cost: the packages' re-export files load what is
asked of them, when it is asked.

`import anthropic` runs `anthropic/__init__.py`, which imports every client (Bedrock, Vertex, Foundry, AWS, Google
Cloud), every resource and, through `anthropic/types/__init__.py` and its sub-packages, some 3,000 modules of
pydantic models: ~1.2 CPU-s per process here, the largest part of a `-p` run's start and of every SDK query's.
We use one client, its errors and the stream's events. `mcp/__init__.py` and `mcp/client/__init__.py` likewise
import the whole client and, through it, the whole server (~0.45 CPU-s of the ~1 s a client costs), for a
session that only talks to servers. So before the first import, a finder on `sys.meta_path` gives each such
package whose `__init__.py` only re-exports names (`from .x import A as A`, `from package.x import A`, an
`__all__` list, a docstring) a module that imports `x` the first time `A` is read (PEP 562 `__getattr__`).
Every name resolves to the very object the package defines; nothing of it is copied or changed.

The anthropic top-level `__init__.py` is read with `ast` and taken lazily only when every statement is of a kind
known here (imports, `__all__`, `_setup_logging()`, the loop that renames `__module__`): another release that adds
a statement gets the package's own import. tests/core/test_lazy_import.py checks every public name of
`anthropic`, `anthropic.types`, `anthropic.types.beta`, `mcp` and `mcp.client` against an ordinary import, and
the suite's real-SDK and MCP tests use it.
"""

from __future__ import annotations

import __future__
import ast
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

Exports = dict[str, tuple[str, str]]
"""name -> (the module it is read from, the package itself for a submodule; the attribute or submodule's name)."""

_installed = threading.Lock()
RENAMED = "\0renamed"
"""Key (not a name) under which `reexports` keeps the names whose `__module__` the top level renames."""
FUTURE = "\0future"
"""Key under which it keeps the `from __future__ import ...` names (bound in the module like any import)."""


def _import_names(node: ast.ImportFrom, package: str, package_init: Path, exports: Exports) -> bool:
    """Record the names of one `from .x import ...` or `from some.module import ...` (a star import from a
    re-export package is expanded)."""
    if node.level == 1:
        base = f"{package}.{node.module}" if node.module else package
    elif node.level == 0 and node.module and node.module != "__future__":
        base = node.module
    else:
        return False
    for alias in node.names:
        if alias.name == "*":
            if node.level != 1:
                return False
            target = package_init.parent.joinpath(*(node.module or "").split("."), "__init__.py")
            inner = reexports(target, base)
            if inner is not None:
                exports.update((name, source) for name, source in inner.items() if name not in (RENAMED, FUTURE))
                continue
            names = _star_names(target)  # a package that computes some names: read from it whole, when asked
            if names is None:
                return False
            exports.update((name, (base, name)) for name in names)
            continue
        exports[alias.asname or alias.name] = (base, alias.name)
    return True


def _star_names(init: Path) -> list[str] | None:
    """The names `from package import *` binds: its literal `__all__`, else every public top-level name."""
    try:
        tree = ast.parse(init.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["__all__"]:
            try:
                listed = ast.literal_eval(node.value)
            except ValueError:
                return None
            return [str(n) for n in listed]
        if isinstance(node, ast.ImportFrom):
            if any(a.name == "*" for a in node.names):
                return None
            names.extend(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Import):
            names.extend((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Assign):
            names.extend(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
    return [n for n in names if not n.startswith("_")]


def reexports(init: Path, package: str, *, top_level: bool = False) -> Exports | None:
    """What the `__init__.py` of `package` re-exports, or None when it does anything else (then it loads as
    usual). `top_level`: also the statements `anthropic/__init__.py` itself has besides its imports."""
    try:
        tree = ast.parse(init.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    exports: Exports = {}
    for i, node in enumerate(tree.body):
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            exports[FUTURE] = ("", ",".join(a.name for a in node.names))  # `annotations` is bound in the module
            continue
        if isinstance(node, ast.ImportFrom):
            if not _import_names(node, package, init, exports):
                return None
        elif i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            continue  # the docstring
        elif isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["__all__"]:
            if top_level:
                try:
                    listed = ast.literal_eval(node.value)
                except ValueError:
                    return None
                exports[RENAMED] = ("", ",".join(n for n in listed if not n.startswith("__")))
            continue
        elif top_level and _known_top_level(node, package, init, exports):
            continue
        else:
            return None
    return exports


def _known_top_level(node: ast.stmt, package: str, init: Path, exports: Exports) -> bool:
    """The other statements of anthropic/__init__.py (2.x): `import typing as _t`, the `resources` proxy under
    `if not _t.TYPE_CHECKING`, `_setup_logging()`, and the loop setting `__module__` on what `__all__` names."""
    if isinstance(node, ast.Import):
        return [(a.name, a.asname) for a in node.names] == [("typing", "_t")]
    if isinstance(node, ast.If) and ast.unparse(node.test) == "not _t.TYPE_CHECKING" and not node.orelse:
        return all(isinstance(n, ast.ImportFrom) and _import_names(n, package, init, exports) for n in node.body)
    if isinstance(node, ast.Expr):
        return ast.unparse(node) == "_setup_logging()"
    if isinstance(node, ast.Assign):
        return ast.unparse(node) == "__locals = locals()"
    if isinstance(node, ast.For):
        return ast.unparse(node.target) == "__name" and ast.unparse(node.iter) == "__all__"
    return False


def _lazy_attribute(module: ModuleType, exports: Exports, renamed: frozenset[str]) -> Any:
    package = module.__name__

    def __getattr__(name: str) -> Any:
        if name not in exports:
            # A submodule, as an eager import would have left it on the package (`anthropic.types.message`).
            if name.startswith("__") or importlib.util.find_spec(f"{package}.{name}") is None:
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            exports[name] = (package, name)
        source_name, attr = exports[name]
        if source_name == package:  # `from . import types`: a submodule
            value: Any = importlib.import_module(f"{package}.{attr}")
        else:
            source = importlib.import_module(source_name)
            value = getattr(source, attr) if hasattr(source, attr) else importlib.import_module(f"{source_name}.{attr}")
        if name in renamed:  # as anthropic/__init__.py does for what its __all__ lists
            try:
                value.__module__ = package
            except (TypeError, AttributeError):
                pass
        setattr(module, name, value)
        return value

    return __getattr__


class _ReexportLoader(importlib.abc.Loader):
    def __init__(self, exports: Exports, top_level: bool) -> None:
        self.exports, self.top_level = exports, top_level

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        exports = dict(self.exports)
        renamed = frozenset(filter(None, exports.pop(RENAMED, ("", ""))[1].split(",")))
        for feature in filter(None, exports.pop(FUTURE, ("", ""))[1].split(",")):
            setattr(module, feature, getattr(__future__, feature))
        module.__getattr__ = _lazy_attribute(module, exports, renamed)  # type: ignore[method-assign]
        module.__all__ = list(exports)
        if self.top_level:
            from anthropic._utils._logs import setup_logging  # the one effect of importing the SDK

            setup_logging()


class _ReexportFinder(importlib.abc.MetaPathFinder):
    def __init__(self) -> None:
        self.roots: set[str] = set()

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname.partition(".")[0] not in self.roots:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.submodule_search_locations or not spec.origin:
            return spec
        top_level = fullname == "anthropic"
        exports = reexports(Path(spec.origin), fullname, top_level=top_level)
        if exports:
            spec.loader = _ReexportLoader(exports, top_level)
        return spec


_finder = _ReexportFinder()


def import_lazily(root: str) -> ModuleType:
    """`import root`, lazily where its files allow (see the module's docstring); the package as is when
    something imported it already."""
    with _installed:
        if root not in sys.modules:
            _finder.roots.add(root)
            if _finder not in sys.meta_path:
                sys.meta_path.insert(0, _finder)
    return importlib.import_module(root)


def import_anthropic() -> ModuleType:
    return import_lazily("anthropic")


def import_mcp() -> ModuleType:
    return import_lazily("mcp")
