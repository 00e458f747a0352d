"""Fast Fourier transforms as TF 1.15 builds them (tf.signal.fft ... irfft3d, tf.spectral, the
top-level tf.fft): the complex FFT/IFFT ops and the real RFFT/IRFFT ops, whose Python wrappers
infer fft_length from the input and zero-pad the input up to it; fftshift/ifftshift."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, counting_ops, math_ops
from tfcluster.ops.op_util import Outputs, check_dtype, make_op

_COMPLEX = (dtypes.complex64, dtypes.complex128)
_SUFFIX = {1: "", 2: "2D", 3: "3D"}


def _rank_at_least(shape: TensorShape, rank: int, op_type: str, name: str) -> None:
    if shape.ndims is not None and shape.ndims < rank:
        raise ValueError(
            f"Shape must be at least rank {rank} but is rank {shape.ndims} for '{name}' "
            f"(op: '{op_type}') with input shapes: {shape}."
        )


def _complex_infer(rank: int, op_type: str) -> op_def_registry.InferFn:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        _rank_at_least(inputs[0].shape, rank, op_type, op_type)
        return [(inputs[0].dtype.base_dtype, inputs[0].shape)]

    return infer


def _real_infer(rank: int, op_type: str, inverse: bool) -> op_def_registry.InferFn:
    def infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
        x, fft_length = inputs
        out = dtypes.float32 if inverse else dtypes.complex64
        _rank_at_least(x.shape, rank, op_type, op_type)
        length_shape = fft_length.shape
        if length_shape.ndims is not None and (
            length_shape.ndims != 1 or length_shape.as_list()[0] not in (None, rank)
        ):
            got = length_shape.as_list()[0] if length_shape.ndims == 1 else length_shape
            raise ValueError(
                f"Dimension must be {rank} but is {got} for '{op_type}' (op: '{op_type}') "
                f"with input shapes: {x.shape}, {length_shape}."
            )
        if x.shape.ndims is None:
            return [(out, TensorShape(None))]
        outer = x.shape.as_list()[: x.shape.ndims - rank]
        lengths = tensor_util.constant_value(fft_length)
        if lengths is None:
            return [(out, TensorShape([*outer, *([None] * rank)]))]
        inner = [int(n) for n in lengths.reshape(-1)]
        if not inverse:
            inner[-1] = inner[-1] // 2 + 1
        return [(out, TensorShape([*outer, *inner]))]

    return infer


for _rank, _suffix in _SUFFIX.items():
    for _op in (f"FFT{_suffix}", f"IFFT{_suffix}"):
        op_def_registry.register(_op, _complex_infer(_rank, _op))
    op_def_registry.register(f"RFFT{_suffix}", _real_infer(_rank, f"RFFT{_suffix}", False))
    op_def_registry.register(f"IRFFT{_suffix}", _real_infer(_rank, f"IRFFT{_suffix}", True))


def _complex_op(op_type: str) -> Callable[..., Tensor]:
    def fn(input: Any, name: str | None = None) -> Tensor:
        with name_scope(name, op_type, [input]) as scope:
            if isinstance(input, Tensor):
                x = input
            else:
                # A Python or numpy value becomes the first allowed type, as TF's op wrappers do.
                x = convert_to_tensor(input, dtype=dtypes.complex64, name="input")
            check_dtype(x, _COMPLEX, op_type, "input")
            attrs = {"Tcomplex": x.dtype.base_dtype}
            return make_op(op_type, [x], attrs, name=scope).outputs[0]

    fn.__name__ = op_type.lower()
    fn.__doc__ = f"The {op_type} of the innermost dimensions of a complex tensor."
    return fn


fft = _complex_op("FFT")
ifft = _complex_op("IFFT")
fft2d = _complex_op("FFT2D")
ifft2d = _complex_op("IFFT2D")
fft3d = _complex_op("FFT3D")
ifft3d = _complex_op("IFFT3D")


def _inferred_fft_length(x: Tensor, rank: int, inverse: bool) -> Tensor:
    """fft_length from x's innermost dimensions (2 * (n - 1) for the last one of an IRFFT)."""
    inner = x.shape[-rank:]
    if inner.is_fully_defined():
        lengths = [int(d) for d in inner.as_list()]  # type: ignore[arg-type]
        if inverse:
            lengths[-1] = max(0, 2 * (lengths[-1] - 1))
        return convert_to_tensor(lengths, dtypes.int32)
    dynamic = array_ops.shape(x)[-rank:]
    if not inverse:
        return dynamic
    parts = array_ops.unstack(dynamic)
    parts[-1] = math_ops.maximum(0, 2 * (parts[-1] - 1))
    return array_ops.stack(parts)


def _pad_to_fft_length(x: Tensor, rank: int, fft_length: Tensor, inverse: bool) -> Tensor:
    """x zero-padded on its innermost dimensions up to fft_length (up to n // 2 + 1 on the last
    dimension of an IRFFT's input); longer dimensions are left for the kernel to crop."""
    if x.shape.ndims is not None and 0 in x.shape.as_list():
        return x
    wanted = tensor_util.constant_value_as_shape(fft_length)
    if wanted.is_fully_defined() and x.shape.ndims is not None:
        have = x.shape[-wanted.ndims :]  # type: ignore[operator]
        if have.is_fully_defined():
            lengths = [int(d) for d in wanted.as_list()]  # type: ignore[arg-type]
            if inverse:
                lengths[-1] = lengths[-1] // 2 + 1
            inner = [[0, max(n - int(d), 0)] for n, d in zip(lengths, have.as_list())]
            if not any(after for _, after in inner):
                return x
            outer = [[0, 0]] * max(x.shape.ndims - len(lengths), 0)
            return array_ops.pad(x, outer + inner)
    # Shapes known only when the graph runs: paddings computed in the graph (0 pads nothing).
    lengths_t = fft_length
    if inverse:
        lengths_t = array_ops.concat([fft_length[:-1], fft_length[-1:] // 2 + 1], 0)
    outer_count = math_ops.maximum(0, array_ops.rank(x) - rank)
    outer_pads = array_ops.zeros([outer_count], fft_length.dtype)
    inner_pads = math_ops.maximum(0, lengths_t - array_ops.shape(x)[-rank:])
    after = array_ops.concat([outer_pads, inner_pads], 0)
    return array_ops.pad(x, array_ops.stack([array_ops.zeros_like(after), after], axis=1))


def _real_op(rank: int, inverse: bool) -> Callable[..., Tensor]:
    op_type = f"{'IRFFT' if inverse else 'RFFT'}{_SUFFIX[rank]}"
    default_name = op_type.lower()

    def fn(input_tensor: Any, fft_length: Any = None, name: str | None = None) -> Tensor:
        with name_scope(name, default_name, [input_tensor, fft_length]) as scope:
            in_dtype = dtypes.complex64 if inverse else dtypes.float32
            x = convert_to_tensor(input_tensor, in_dtype)
            x.shape.with_rank_at_least(rank)
            if fft_length is None:
                lengths = _inferred_fft_length(x, rank, inverse)
            else:
                lengths = convert_to_tensor(fft_length, dtypes.int32)
            x = _pad_to_fft_length(x, rank, lengths, inverse)
            return make_op(op_type, [x, lengths], {}, name=scope).outputs[0]

    fn.__name__ = default_name
    fn.__doc__ = (
        f"The {op_type} of the innermost {rank} dimension(s), over fft_length points "
        "(inferred from the input when not given; the input is zero-padded up to it)."
    )
    return fn


rfft = _real_op(1, inverse=False)
irfft = _real_op(1, inverse=True)
rfft2d = _real_op(2, inverse=False)
irfft2d = _real_op(2, inverse=True)
rfft3d = _real_op(3, inverse=False)
irfft3d = _real_op(3, inverse=True)


def _shifts(x: Tensor, axes: Any, sign: int) -> tuple[Any, Any]:
    dims = x.shape.as_list()
    if axes is None:
        axes = tuple(range(len(dims)))
        return [sign * (int(d) // 2) for d in dims], axes  # type: ignore[arg-type]
    if isinstance(axes, int):
        return sign * (int(dims[axes]) // 2), axes  # type: ignore[arg-type]
    return [sign * (int(dims[a]) // 2) for a in axes], axes  # type: ignore[arg-type]


def fftshift(x: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """Moves the zero-frequency component to the centre (numpy.fft.fftshift)."""
    with name_scope(name, "fftshift") as scope:
        t = convert_to_tensor(x)
        shift, axes = _shifts(t, axes, 1)
        return counting_ops.roll(t, shift, axes, scope)


def ifftshift(x: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """The inverse of fftshift (they differ by one sample for odd lengths)."""
    with name_scope(name, "ifftshift") as scope:
        t = convert_to_tensor(x)
        shift, axes = _shifts(t, axes, -1)
        return counting_ops.roll(t, shift, axes, scope)
