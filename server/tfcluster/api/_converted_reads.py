"""The module attributes a function's source reads, in the order TF 1.15's AutoGraph resolves
them when it converts the function (a tf.data function, a tf.function with autograph on).

AutoGraph's directives converter visits the function's syntax tree (children first, fields in
order) and, for each `a.b` whose `a` is statically a module, reads `b` from it: so a converted
function's deprecated names ("The name tf.decode_csv is deprecated") are announced together,
in source order, before its body runs (before a `tf.logging.info` in it prints anything).
"""

from __future__ import annotations

import ast
import builtins
import inspect
import textwrap
import types
import weakref
from collections.abc import Iterator
from typing import Any

_scanned: weakref.WeakSet[types.CodeType] = weakref.WeakSet()


def first_scan(code: types.CodeType) -> bool:
    """True the first time a function's code is asked about (it is scanned then)."""
    if code in _scanned:
        return False
    _scanned.add(code)
    return True


def module_reads(frame: types.FrameType) -> Iterator[tuple[types.ModuleType, str]]:
    """(module, attribute name) for each `module.name` read in the source of the function
    running in `frame`, in AutoGraph's visiting order; nothing when its source can't be read."""
    code = frame.f_code
    if code.co_name == "<lambda>":
        return
    try:
        lines, _first = inspect.getsourcelines(code)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef | ast.AsyncFunctionDef):
        return
    local = set(code.co_varnames) | set(code.co_cellvars)
    yield from _Visitor(frame, local).reads(tree.body[0])


_NOTHING = object()


class _Visitor:
    def __init__(self, frame: types.FrameType, local: set[str]) -> None:
        self._frame = frame
        self._local = local

    def reads(self, node: ast.AST) -> Iterator[tuple[types.ModuleType, str]]:
        found: list[tuple[types.ModuleType, str]] = []
        self._visit(node, found)
        return iter(found)

    def _visit(self, node: ast.AST, found: list[tuple[types.ModuleType, str]]) -> Any:
        """Visits node's children first; returns node's static value (_NOTHING if none)."""
        values = {}
        for field, child in ast.iter_fields(node):
            if isinstance(child, ast.AST):
                values[field] = self._visit(child, found)
            elif isinstance(child, list):
                for item in child:
                    if isinstance(item, ast.AST):
                        self._visit(item, found)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            return self._name(node.id)
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            parent = values.get("value", _NOTHING)
            if isinstance(parent, types.ModuleType):
                found.append((parent, node.attr))
                try:
                    return types.ModuleType.__getattribute__(parent, node.attr)
                except Exception:  # a name tfcluster lacks fails on use, not here
                    return _NOTHING
        return _NOTHING

    def _name(self, name: str) -> Any:
        if name in self._local:
            return _NOTHING
        frame = self._frame
        if name in frame.f_code.co_freevars:
            return frame.f_locals.get(name, _NOTHING)
        if name in frame.f_globals:
            return frame.f_globals[name]
        return getattr(builtins, name, _NOTHING)
