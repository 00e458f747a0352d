"""tf.signal.frame (overlapping frames of a signal along one axis) and tf.signal.overlap_and_add
(its adjoint's inverse: frames summed back into one signal), as TF 1.15 defines them."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes, tensor_util
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.ops import array_ops, math_ops


def _static_int(t: Tensor) -> int | None:
    value = tensor_util.constant_value(t)
    return None if value is None else int(value)


def _frame_count(length: int, frame_length: int, frame_step: int, pad_end: bool) -> int:
    if pad_end:
        return max(0, -(-length // frame_step))
    return max(0, (length - frame_length + frame_step) // frame_step)


def _static_frame_shape(
    signal: Tensor,
    frame_length: int | None,
    frame_step: int | None,
    pad_end: bool,
    axis: int | None,
) -> list[int | None] | None:
    if signal.shape.ndims is None:
        return None
    if axis is None:
        return [None] * (signal.shape.ndims + 1)
    dims = signal.shape.as_list()
    length = dims[axis]
    count = None
    if length is not None and frame_step is not None and (pad_end or frame_length is not None):
        count = _frame_count(length, frame_length or 0, frame_step, pad_end)
    rest = dims[axis + 1 :] if axis != -1 else []
    return [*dims[:axis], count, frame_length, *rest]


def frame(
    signal: Any,
    frame_length: Any,
    frame_step: Any,
    pad_end: bool = False,
    pad_value: Any = 0,
    axis: Any = -1,
    name: str | None = None,
) -> Tensor:
    """Frames of frame_length samples every frame_step samples along `axis`: the axis becomes
    [num_frames, frame_length]. With pad_end the signal is first padded with pad_value so that
    a frame starts every frame_step samples up to its end."""
    with name_scope(name, "frame", [signal, frame_length, frame_step, pad_value]):
        x = convert_to_tensor(signal, name="signal")
        length_t = convert_to_tensor(frame_length, name="frame_length")
        step_t = convert_to_tensor(frame_step, name="frame_step")
        axis_t = convert_to_tensor(axis, name="axis")
        x.shape.with_rank_at_least(1)
        for t in (length_t, step_t, axis_t):
            t.shape.assert_has_rank(0)
        fl, fs, ax = _static_int(length_t), _static_int(step_t), _static_int(axis_t)
        shape = _static_frame_shape(x, fl, fs, pad_end, ax)
        if pad_end:
            x = _pad_end(x, length_t, step_t, axis_t, pad_value, fl, fs, ax)
        indices = _frame_indices(x, length_t, step_t, fl, fs, ax, axis_t)
        frames = array_ops.gather(x, indices, axis=axis_t if ax is None else ax)
        if shape is not None:
            frames.set_shape(shape)
        return frames


def _axis_length(x: Tensor, axis: int | None, axis_t: Tensor) -> Any:
    if axis is not None and x.shape.ndims is not None and x.shape.as_list()[axis] is not None:
        return x.shape.as_list()[axis]
    return array_ops.shape(x)[axis_t if axis is None else axis]


def _pad_end(
    x: Tensor,
    length_t: Tensor,
    step_t: Tensor,
    axis_t: Tensor,
    pad_value: Any,
    frame_length: int | None,
    frame_step: int | None,
    axis: int | None,
) -> Tensor:
    """x padded along the axis so that ceil(n / step) whole frames fit."""
    value = convert_to_tensor(pad_value, x.dtype.base_dtype)
    value.shape.assert_has_rank(0)
    n_static = _axis_length(x, axis, axis_t)
    if isinstance(n_static, int) and frame_length is not None and frame_step is not None:
        frames = -(-n_static // frame_step)
        added = max(0, frame_length + frame_step * (frames - 1) - n_static)
        pads = [[0, 0] for _ in range(x.shape.ndims or 0)]
        pads[axis] = [0, added]  # type: ignore[index]
        return array_ops.pad(x, pads, constant_values=value)
    rank = array_ops.rank(x)
    axis_i = math_ops.range(rank)[axis_t]
    n = array_ops.shape(x)[axis_i]
    count = -(-n // step_t)
    extra = math_ops.maximum(0, length_t + step_t * (count - 1) - n)
    at_axis = math_ops.cast(math_ops.equal(math_ops.range(rank), axis_i), extra.dtype) * extra
    paddings = array_ops.stack([array_ops.zeros_like(at_axis), at_axis], axis=1)
    return array_ops.pad(x, paddings, constant_values=value)


def _frame_indices(
    x: Tensor,
    length_t: Tensor,
    step_t: Tensor,
    frame_length: int | None,
    frame_step: int | None,
    axis: int | None,
    axis_t: Tensor,
) -> Any:
    """[num_frames, frame_length] sample indices: frame i holds samples i*step .. i*step+len-1.
    Made by two small ranges when the graph runs, not stored in it (a long signal's indices
    would be megabytes of GraphDef)."""
    n = _axis_length(x, axis, axis_t)
    if isinstance(n, int) and frame_length is not None and frame_step is not None:
        count = _frame_count(n, frame_length, frame_step, pad_end=False)
        starts = array_ops.expand_dims(math_ops.range(0, count * frame_step, frame_step), 1)
        return starts + array_ops.expand_dims(math_ops.range(frame_length), 0)
    length_i = math_ops.cast(length_t, dtypes.int32)
    step_i = math_ops.cast(step_t, dtypes.int32)
    n_i = math_ops.cast(n, dtypes.int32)
    count_t = math_ops.maximum(0, 1 + (n_i - length_i) // step_i)
    starts_t = array_ops.expand_dims(math_ops.range(count_t) * step_i, 1)
    return starts_t + array_ops.expand_dims(math_ops.range(length_i), 0)


def overlap_and_add(signal: Any, frame_step: Any, name: str | None = None) -> Tensor:
    """[..., frames, frame_length] -> [..., frame_length + frame_step * (frames - 1)]: frame i
    added in at sample i * frame_step."""
    with name_scope(name, "overlap_and_add", [signal, frame_step]):
        x = convert_to_tensor(signal, name="signal")
        x.shape.with_rank_at_least(2)
        step = convert_to_tensor(frame_step, name="frame_step")
        step.shape.assert_has_rank(0)
        if not step.dtype.is_integer:
            raise ValueError(f"frame_step must be an integer. Got {step.dtype}")
        shape = array_ops.shape(x)
        outer = shape[:-2]
        frames, length = shape[-2], shape[-1]
        out_length = length + step * (frames - 1)
        known_step = _static_int(step)
        dims = x.shape.as_list() if x.shape.ndims is not None else [None]
        if known_step is not None and dims[-1] is not None and known_step == dims[-1]:
            # Frames that just touch: a reshape.
            return array_ops.reshape(
                x, array_ops.concat([outer, [out_length]], 0), name="fast_path"
            )
        return _skewed_sum(x, step, outer, frames, length, out_length)


def _skewed_sum(
    x: Tensor, step: Tensor, outer: Tensor, frames: Tensor, length: Tensor, out_length: Tensor
) -> Tensor:
    """Each frame cut into `chunks` pieces of frame_step samples; output block b is the sum over
    j of piece j of frame b - j. Laying the [chunks, frames + chunks] pieces out flat and reading
    them back with rows one shorter shifts row j right by j, so a plain sum over j adds them."""
    chunks = -(-length // step)
    outer_rank = array_ops.size(outer)

    def full(*inner: Any) -> Tensor:
        return array_ops.concat([outer, array_ops.stack(list(inner))], 0)

    pads = array_ops.concat(
        [
            array_ops.zeros([outer_rank, 2], dtypes.int32),
            [[0, chunks], [0, chunks * step - length]],
        ],
        0,
    )
    pieces = array_ops.reshape(array_ops.pad(x, pads), full(frames + chunks, chunks, step))
    perm = array_ops.concat([math_ops.range(outer_rank), math_ops.add(outer_rank, [1, 0, 2])], 0)
    by_piece = array_ops.reshape(
        array_ops.transpose(pieces, perm), full((frames + chunks) * chunks, step)
    )
    shifted = array_ops.reshape(
        by_piece[..., : (frames + chunks - 1) * chunks, :], full(chunks, frames + chunks - 1, step)
    )
    summed = math_ops.reduce_sum(shifted, -3)
    flat = array_ops.reshape(summed, full((frames + chunks - 1) * step))
    return flat[..., :out_length]
