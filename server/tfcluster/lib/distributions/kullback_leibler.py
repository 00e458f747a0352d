"""KL divergences between distributions: RegisterKL adds one for a pair of classes, and
kl_divergence finds the one registered nearest the two classes in their hierarchies."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from tfcluster.framework.graph import Tensor, control_dependencies, name_scope
from tfcluster.ops import array_ops, logging_ops, math_ops

KLFn = Callable[..., Tensor]
_DIVERGENCES: dict[tuple[type, type], KLFn] = {}


def _registered_kl(type_a: type, type_b: type) -> KLFn | None:
    """The function registered for the pair of ancestors with the fewest steps up in total."""
    best: tuple[int, KLFn] | None = None
    for steps_a, parent_a in enumerate(inspect.getmro(type_a)):
        for steps_b, parent_b in enumerate(inspect.getmro(type_b)):
            fn = _DIVERGENCES.get((parent_a, parent_b))
            if fn is not None and (best is None or steps_a + steps_b < best[0]):
                best = (steps_a + steps_b, fn)
    return None if best is None else best[1]


def kl_divergence(
    distribution_a: Any, distribution_b: Any, allow_nan_stats: bool = True, name: str | None = None
) -> Tensor:
    """KL(distribution_a || distribution_b), batched."""
    kl_fn = _registered_kl(type(distribution_a), type(distribution_b))
    if kl_fn is None:
        raise NotImplementedError(
            "No KL(distribution_a || distribution_b) registered for distribution_a type "
            f"{type(distribution_a).__name__} and distribution_b type "
            f"{type(distribution_b).__name__}"
        )
    with name_scope("KullbackLeibler"):
        kl_t = kl_fn(distribution_a, distribution_b, name=name)
        if allow_nan_stats:
            return kl_t
        kl_t = array_ops.identity(kl_t, name="kl")
        no_nan = math_ops.logical_not(math_ops.reduce_any(math_ops.is_nan(kl_t)))
        message = (
            f"KL calculation between {distribution_a.name} and {distribution_b.name} returned "
            "NaN values (and was called with allow_nan_stats=False). Values:"
        )
        with control_dependencies([logging_ops.Assert(no_nan, [message, kl_t])]):
            return array_ops.identity(kl_t, name="checked_kl")


def cross_entropy(
    ref: Any, other: Any, allow_nan_stats: bool = True, name: str | None = None
) -> Tensor:
    """H[ref, other] = H[ref] + KL(ref || other)."""
    with name_scope(name, "cross_entropy"):
        return ref.entropy() + kl_divergence(ref, other, allow_nan_stats=allow_nan_stats)


class RegisterKL:
    """Decorator: `@RegisterKL(A, B) def _kl(a, b, name=None)` registers KL(A || B)."""

    def __init__(self, dist_cls_a: type, dist_cls_b: type) -> None:
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, kl_fn: KLFn) -> KLFn:
        if not callable(kl_fn):
            raise TypeError(f"kl_fn must be callable, received: {kl_fn}")
        if self._key in _DIVERGENCES:
            raise ValueError(
                f"KL({self._key[0].__name__} || {self._key[1].__name__}) has already been "
                f"registered to: {_DIVERGENCES[self._key]}"
            )
        _DIVERGENCES[self._key] = kl_fn
        return kl_fn
