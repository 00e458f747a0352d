"""Complex numbers over xp: Complex (from real and imaginary parts), Real, Imag, Angle."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.kernels import _xp_util as u
from tfcluster.kernels.registry import kernel

Compute = Callable[[Any, list[Any]], tuple[Any, ...]]


@kernel("Complex")
def complex_(node: Any, xp: Any) -> Compute:
    dtype = u.np_dtype(node, "Tout")

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        re, im = ins
        try:
            np.broadcast_shapes(re.shape, im.shape)
        except ValueError:
            raise u.invalid(
                f"Incompatible shapes: {u.shape_str(re.shape)} vs. {u.shape_str(im.shape)}"
            ) from None
        return ((re + 1j * im).astype(dtype),)

    return compute


def _part(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Compute]:
    def factory(node: Any, xp: Any) -> Compute:
        dtype = u.np_dtype(node, "Tout")

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            return (fn(xp, ins[0]).astype(dtype),)

        return compute

    return factory


kernel("Real")(_part(lambda xp, z: xp.real(z)))
kernel("Imag")(_part(lambda xp, z: xp.imag(z)))
kernel("Angle")(_part(lambda xp, z: xp.angle(z)))


def _complex_abs(xp: Any, z: Any) -> Any:
    # TF's std::abs of a complex is hypot in the parts' precision (numpy's complex abs
    # rounds otherwise in about a third of float32 values).
    return xp.hypot(xp.real(z), xp.imag(z))


kernel("ComplexAbs")(_part(_complex_abs))
