"""`import anthropic` at half the cost: the SDK's re-export files load what is asked of them, when it is asked.

`import anthropic` runs `anthropic/__init__.py`, which imports every client (Bedrock, Vertex, Foundry, AWS, Google
Cloud), every resource and, through `anthropic/types/__init__.py` and its sub-packages, some 3,000 modules of
pydantic models: ~1.2 CPU-s per process here, the largest part of a `-p` run's start and of every SDK query's.
We use one client, its errors and the stream's events. So before the first import, a finder on `sys.meta_path`
gives the package `anthropic` and each of its sub-packages whose `__init__.py` only re-exports names (`from .x
import A as A`, an `__all__` list) a module that imports `x` the first time `A` is read (PEP 562 `__getattr__`).
Every name resolves to the very object the SDK defines; nothing of the SDK is copied or changed.

The top-level `__init__.py` is read with `ast` and taken lazily only when every statement is of a kind known here
(imports, `__all__`, `_setup_logging()`, the loop that renames `__module__`): another release that adds a
statement gets the SDK's own import. tests/core/test_anthropic_import.py checks every public name of `anthropic`,
`anthropic.types` and `anthropic.types.beta` against an ordinary import, and the suite's real-SDK tests use it.
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
"""name -> (module relative to the package, "" for the package itself; the attribute or submodule's name)."""

_installed = threading.Lock()
RENAMED = "\0renamed"
"""Key (not a name) under which `reexports` keeps the names whose `__module__` the top level renames."""
FUTURE = "\0future"
"""Key under which it keeps the `from __future__ import ...` names (bound in the module like any import)."""


def _import_names(node: ast.ImportFrom, package_init: Path, exports: Exports) -> bool:
    """Record the names of one `from .x import ...` (a star import from a re-export package is expanded)."""
    if node.level != 1:
        return False
    module = node.module or ""
    for alias in node.names:
        if alias.name == "*":
            target = package_init.parent.joinpath(*module.split("."), "__init__.py")
            inner = reexports(target)
            if inner is not None:
                for name, (sub, attr) in inner.items():
                    exports[name] = (f"{module}.{sub}" if sub else module, attr)
                continue
            names = _star_names(target)  # a package that computes some names: read from it whole, when asked
            if names is None:
                return False
            exports.update((name, (module, name)) for name in names)
            continue
        exports[alias.asname or alias.name] = (module, alias.name)
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


def reexports(init: Path, *, top_level: bool = False) -> Exports | None:
    """What a package's `__init__.py` re-exports, or None when it does anything else (then it loads as usual).
    `top_level`: also the statements `anthropic/__init__.py` itself has besides its imports."""
    try:
        tree = ast.parse(init.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    exports: Exports = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            exports[FUTURE] = ("", ",".join(a.name for a in node.names))  # `annotations` is bound in the module
            continue
        if isinstance(node, ast.ImportFrom):
            if not _import_names(node, init, exports):
                return None
        elif isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["__all__"]:
            if top_level:
                try:
                    listed = ast.literal_eval(node.value)
                except ValueError:
                    return None
                exports[RENAMED] = ("", ",".join(n for n in listed if not n.startswith("__")))
            continue
        elif top_level and _known_top_level(node, init, exports):
            continue
        else:
            return None
    return exports


def _known_top_level(node: ast.stmt, init: Path, exports: Exports) -> bool:
    """The other statements of anthropic/__init__.py (2.x): `import typing as _t`, the `resources` proxy under
    `if not _t.TYPE_CHECKING`, `_setup_logging()`, and the loop setting `__module__` on what `__all__` names."""
    if isinstance(node, ast.Import):
        return [(a.name, a.asname) for a in node.names] == [("typing", "_t")]
    if isinstance(node, ast.If) and ast.unparse(node.test) == "not _t.TYPE_CHECKING" and not node.orelse:
        return all(isinstance(n, ast.ImportFrom) and _import_names(n, init, exports) for n in node.body)
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
            exports[name] = ("", name)
        sub, attr = exports[name]
        if not sub:  # `from . import types`: a submodule
            value: Any = importlib.import_module(f"{package}.{attr}")
        else:
            source = importlib.import_module(f"{package}.{sub}")
            value = getattr(source, attr) if hasattr(source, attr) else importlib.import_module(f"{package}.{sub}.{attr}")
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
    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "anthropic" and not fullname.startswith("anthropic."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.submodule_search_locations or not spec.origin:
            return spec
        top_level = fullname == "anthropic"
        exports = reexports(Path(spec.origin), top_level=top_level)
        if exports:
            spec.loader = _ReexportLoader(exports, top_level)
        return spec


def import_anthropic() -> ModuleType:
    """`import anthropic`, lazily where its files allow (see the module's docstring); the SDK as is when
    something imported it already."""
    with _installed:
        if "anthropic" not in sys.modules and not any(isinstance(f, _ReexportFinder) for f in sys.meta_path):
            sys.meta_path.insert(0, _ReexportFinder())
    import anthropic

    return anthropic
