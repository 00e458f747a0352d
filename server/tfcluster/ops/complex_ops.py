"""Complex numbers (tf.complex, tf.real, tf.imag, tf.angle), as TF 1.15 builds them: float32
parts make complex64, float64 parts complex128."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dispatch, dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.ops import array_ops
from tfcluster.ops.op_util import Outputs, broadcast_shape, make_op


def _complex_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(attrs["Tout"], broadcast_shape(inputs[0].shape, inputs[1].shape))]


def _part_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(attrs["Tout"], inputs[0].shape)]


op_def_registry.register("Complex", _complex_infer)
for _op in ("Real", "Imag", "Angle", "ComplexAbs"):
    op_def_registry.register(_op, _part_infer)


def complex(real: Any, imag: Any, name: str | None = None) -> Tensor:
    """real + i * imag (float32 parts make complex64, float64 parts complex128)."""
    re = convert_to_tensor(real, name="real")
    im = convert_to_tensor(imag, name="imag")
    with name_scope(name, "Complex", [re, im]) as scope:
        kinds = (re.dtype.base_dtype, im.dtype.base_dtype)
        if kinds == (dtypes.float32, dtypes.float32):
            out = dtypes.complex64
        elif kinds == (dtypes.float64, dtypes.float64):
            out = dtypes.complex128
        else:
            raise TypeError(f"real and imag have incorrect types: {kinds[0].name} {kinds[1].name}")
        attrs = {"T": re.dtype.base_dtype, "Tout": out}
        return make_op("Complex", [re, im], attrs, name=scope).outputs[0]


def _part(op_type: str, input: Any, name: str | None, otherwise: Any) -> Tensor:
    with name_scope(name, op_type, [input]) as scope:
        z = convert_to_tensor(input, name="input")
        if not z.dtype.base_dtype.is_complex:
            return otherwise(z)  # type: ignore[no-any-return]
        attrs = {"T": z.dtype.base_dtype, "Tout": z.dtype.base_dtype.real_dtype}
        return make_op(op_type, [z], attrs, name=scope).outputs[0]


def real(input: Any, name: str | None = None) -> Tensor:
    """The real part (a real tensor comes back as it is)."""
    return _part("Real", input, name, lambda z: z)


def imag(input: Any, name: str | None = None) -> Tensor:
    """The imaginary part (zeros for a real tensor)."""
    return _part("Imag", input, name, array_ops.zeros_like)


def angle(input: Any, name: str | None = None) -> Tensor:
    """The argument atan2(imag, real) (zeros for a real tensor)."""
    return _part("Angle", input, name, array_ops.zeros_like)


__all__ = ["angle", "complex", "imag", "real"]

# Ragged operands go to the handlers tf.ragged registers (framework/dispatch.DISPATCHED).
dispatch.make_dispatchable(globals())
