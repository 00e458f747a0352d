"""Fetched float32 scalars do arithmetic with Python numbers as they did under TensorFlow 1.15.

TF 1.15 runs on numpy 1.x, where a numpy scalar meeting a Python int or float is promoted as
if the Python number were an int64 / float64: `np.float32(c) / 150` is a float64. Numpy 2
(NEP 50) keeps float32. The TF1 tutorials' `avg_cost += c / total_batch` then sums in float32
and prints other digits than under TF 1.15. `sess.run` hands back its float32 (and float16)
scalars as these subclasses, which compute such mixed operations (arithmetic and comparisons:
`1e99 > loss` neither warns of an overflow nor finds `np.float32(0.1) == 0.1`) in float64 as
numpy 1 did; everything else (numpy operands, printing, dtype, isinstance checks) is numpy's own.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

_NUMPY_2 = int(np.__version__.split(".")[0]) >= 2


def _is_python_number(other: Any) -> bool:
    # Python bools were numpy bools under numpy 1 (no promotion); complex stays numpy's.
    return type(other) in (int, float)


def _binary(op: Callable[[Any, Any], Any], reflected: bool) -> Callable[[Any, Any], Any]:
    def method(self: Any, other: Any) -> Any:
        if _is_python_number(other):
            wide = np.float64(self)
            return op(other, wide) if reflected else op(wide, other)
        base = self.dtype.type(self)
        return op(other, base) if reflected else op(base, other)

    return method


_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "pow": operator.pow,
    "divmod": divmod,
}

# Comparisons have no reflected form: Python swaps the operands (`1e99 > c` is `c < 1e99`).
_COMPARISONS: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}


def _numpy1_class(base: type) -> type:
    # Named as numpy's own class: `print(type(loss))` shows <class 'numpy.float32'> as in TF.
    namespace: dict[str, Any] = {"__slots__": (), "__module__": "numpy"}
    for name, op in _OPERATORS.items():
        namespace[f"__{name}__"] = _binary(op, reflected=False)
        namespace[f"__r{name}__"] = _binary(op, reflected=True)
    for name, op in _COMPARISONS.items():
        namespace[f"__{name}__"] = _binary(op, reflected=False)
    # Defining __eq__ drops the inherited hash: keep numpy's (equal to the float's).
    namespace["__hash__"] = base.__hash__
    return type(base.__name__, (base,), namespace)


_CLASSES: dict[type, type] = {t: _numpy1_class(t) for t in (np.float32, np.float16)}


def as_fetched_scalar(value: Any) -> Any:
    """A 0-d fetch result as the numpy scalar TF 1.15's session gave (numpy 1 promotion)."""
    if not _NUMPY_2:
        return value
    cls = _CLASSES.get(type(value))
    return value if cls is None else cls(value)
