"""The one table of gradient functions: op type -> fn(op, *output_grads) -> input grads.

A function returns one gradient (or None) per input of the op. Ops registered with
`not_differentiable` have no gradient; ops missing from the table raise LookupError when a
gradient must flow through them, naming the op type.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

GradFn = Callable[..., Any]

_GRADIENTS: dict[str, GradFn | None] = {}


class RegisterGradient:
    """Decorator, as in TF: @RegisterGradient("MatMul") def _grad(op, grad): ..."""

    def __init__(self, op_type: str) -> None:
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn: GradFn) -> GradFn:
        _register(self._op_type, fn)
        return fn


def not_differentiable(op_type: str) -> None:
    _register(op_type, None)


def _register(op_type: str, fn: GradFn | None) -> None:
    # As TF's registry: a second registration is an error, never a silent replacement.
    if op_type in _GRADIENTS:
        raise KeyError(f"Registering two gradient with name '{op_type}'!")
    _GRADIENTS[op_type] = fn


NotDifferentiable = not_differentiable
no_gradient = not_differentiable


def lookup(op_type: str) -> GradFn | None:
    """The gradient function; None for non-differentiable ops; LookupError when unknown."""
    if op_type not in _GRADIENTS:
        _load_all()
    if op_type not in _GRADIENTS:
        raise LookupError(f"No gradient defined for operation type '{op_type}'")
    return _GRADIENTS[op_type]


def has_gradient(op_type: str) -> bool:
    _load_all()
    return _GRADIENTS.get(op_type) is not None


def registered() -> dict[str, GradFn | None]:
    _load_all()
    return dict(_GRADIENTS)


_loaded = False
# Graphs may be built in several threads at once (between-graph replication in one process):
# the first lookup must finish loading before any other thread sees _loaded.
_load_lock = threading.RLock()


def _load_all() -> None:
    global _loaded
    if _loaded:
        return
    with _load_lock:
        if _loaded:
            return
        import importlib
        import pkgutil

        # By module path: the package attribute `tfcluster.gradients` is tf.gradients.
        pkg = importlib.import_module("tfcluster.gradients")
        for mod in pkgutil.iter_modules(pkg.__path__):
            if mod.name.endswith("_grad"):
                importlib.import_module(f"tfcluster.gradients.{mod.name}")
        _loaded = True
