"""What the convolution and pooling ops share: TF's argument normalisation (`_get_sequence`,
padding lists), data formats and their spatial axes, and the static window arithmetic of the
shape functions (output sizes for SAME, VALID and EXPLICIT padding, attribute checks)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework.common_shapes import windowed_output_size
from tfcluster.framework.graph import Tensor
from tfcluster.framework.op_def_registry import NodeShapeError
from tfcluster.framework.tensor_shape import TensorShape

# Data formats by number of spatial dims: channels last first, channels first second.
FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}
PADDINGS = ("SAME", "VALID")


def get_sequence(value: Any, n: int, channel_index: int, name: str) -> list[int]:
    """TF's _get_sequence: an int, or n values, or n + 2 values become the n + 2 values of a
    window attr (1 for the batch and channel dims)."""
    if value is None:
        value = [1]
    elif isinstance(value, (numbers.Integral, np.integer)) or not hasattr(value, "__len__"):
        value = [value]
    value = [int(v) for v in value]
    if len(value) == n + 2:
        return value
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError(f"{name} should be of length 1, {n} or {n + 2} but was {len(value)}")
    return [1, 1, *value] if channel_index == 1 else [1, *value, 1]


def convert_padding(padding: Any) -> tuple[str, list[int]]:
    """(padding attr, explicit_paddings attr): a list of 4 [before, after] pairs is EXPLICIT."""
    if isinstance(padding, bytes):
        padding = padding.decode()
    if padding == "EXPLICIT":
        raise ValueError(
            '"EXPLICIT" is not a valid value for the padding parameter. To use explicit '
            "padding, the padding parameter must be a list."
        )
    explicit: list[int] = []
    if isinstance(padding, (list, tuple)):
        for i, pair in enumerate(padding):
            if not isinstance(pair, (list, tuple)):
                raise ValueError(
                    "When padding is a list, each element of padding must be a list/tuple of "
                    f"size 2. Element with index {i} of padding is not a list/tuple"
                )
            if len(pair) != 2:
                raise ValueError(
                    "When padding is a list, each element of padding must be a list/tuple of "
                    f"size 2. Element with index {i} of padding has size {len(pair)}"
                )
            explicit.extend(int(p) for p in pair)
        if len(padding) != 4:
            raise ValueError(
                f"When padding is a list, it must be of size 4. Got padding of size: {len(padding)}"
            )
        return "EXPLICIT", explicit
    return padding_attr(padding), explicit


def padding_attr(padding: Any) -> str:
    if isinstance(padding, bytes):
        padding = padding.decode()
    if padding not in PADDINGS:
        raise ValueError(
            f"Value for attr 'padding' of {padding!r} is not in the list of allowed values: "
            '"SAME", "VALID"'
        )
    return str(padding)


def channels_first(data_format: str | None) -> bool:
    return data_format is not None and data_format.startswith("NC")


def spatial_axes(data_format: str, n: int) -> list[int]:
    return list(range(2, n + 2)) if channels_first(data_format) else list(range(1, n + 1))


def channel_axis(data_format: str, n: int) -> int:
    return 1 if channels_first(data_format) else n + 1


# ---- static shapes ---------------------------------------------------------------------------
def dims(shape: TensorShape, rank: int) -> list[int | None]:
    """The dims of a shape that must have `rank` dims; an unknown rank gives all-None dims.
    Called by shape functions: the graph adds the node, op type and input shapes, as TF."""
    if shape.ndims is None:
        return [None] * rank
    if shape.ndims != rank:
        raise NodeShapeError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return shape.as_list()


def merge_dim(a: int | None, b: int | None, op_type: str, sa: Any, sb: Any) -> int | None:
    if a is not None and b is not None and a != b:
        raise ValueError(
            f"Dimensions must be equal, but are {a} and {b} for '{op_type}' with input "
            f"shapes: {sa}, {sb}."
        )
    return a if a is not None else b


def out_dim(
    size: int | None,
    k: int | None,
    stride: int,
    dilation: int,
    padding: str,
    pads: tuple[int, int],
) -> int | None:
    """One spatial output size, or None when it cannot be known yet."""
    if size is None:
        return None
    if padding == "SAME":
        return (size + stride - 1) // stride
    if k is None:
        return None
    eff = (k - 1) * dilation + 1
    total = size + (pads[0] + pads[1] if padding == "EXPLICIT" else 0)
    if total < eff:
        # The graph adds the node, op type and input shapes (a conv1d in a scope: 'x/conv1d').
        raise NodeShapeError(f"Negative dimension size caused by subtracting {eff} from {total}")
    if padding == "EXPLICIT":
        return (total - eff) // stride + 1
    return windowed_output_size(size, k, stride, dilation, padding)[0]


def check_window_attrs(
    attrs: dict[str, Any],
    op_type: str,
    n: int,
    keys: Sequence[str],
    explicit_ok: bool = False,
    batch_depth_ok: bool = False,
) -> str:
    """Validates padding, data_format and the n + 2 long window attrs; the data format.
    batch_depth_ok: windows over the batch and depth pass (TF's pool shape functions; the
    pool kernels decide)."""
    padding = attrs.get("padding")
    allowed = (*PADDINGS, "EXPLICIT") if explicit_ok else PADDINGS
    if padding not in allowed:
        names = ", ".join(f'"{p}"' for p in allowed)
        raise ValueError(
            f"Value for attr 'padding' of {padding!r} is not in the list of allowed values: "
            f"{names} (op {op_type})"
        )
    fmt = str(attrs.get("data_format", FORMATS[n][0]))
    if fmt not in FORMATS[n]:
        raise ValueError(f"{op_type}: invalid data_format {fmt!r} for {n} spatial dimensions")
    c = channel_axis(fmt, n)
    for key in keys:
        value = [int(v) for v in attrs.get(key, [1] * (n + 2))]
        if len(value) != n + 2:
            raise ValueError(f"{op_type}: {key} must have {n + 2} elements, got {value}")
        if any(v < 1 for v in value):
            raise ValueError(f"{op_type}: {key} must be positive, got {value}")
        if not batch_depth_ok and (value[0] != 1 or value[c] != 1):
            raise ValueError(
                f"{op_type}: current implementation does not yet support {key} in the batch "
                f"and depth dimensions (got {value})"
            )
    if padding == "EXPLICIT":
        explicit = [int(v) for v in attrs.get("explicit_paddings", [])]
        if len(explicit) != 2 * (n + 2):
            raise ValueError(
                f"{op_type}: explicit_paddings must have {2 * (n + 2)} elements for EXPLICIT "
                f"padding, got {len(explicit)}"
            )
        if any(v < 0 for v in explicit):
            raise ValueError(f"{op_type}: explicit_paddings must be non-negative, got {explicit}")
        if explicit[0] or explicit[1] or explicit[2 * c] or explicit[2 * c + 1]:
            raise ValueError(f"{op_type}: explicit padding of the batch or depth dimensions")
    return fmt


def explicit_pairs(attrs: dict[str, Any], fmt: str, n: int) -> list[tuple[int, int]]:
    """(before, after) per spatial dim of an EXPLICIT padding attr; zeros otherwise."""
    if attrs.get("padding") != "EXPLICIT":
        return [(0, 0)] * n
    flat = [int(v) for v in attrs["explicit_paddings"]]
    return [(flat[2 * a], flat[2 * a + 1]) for a in spatial_axes(fmt, n)]


def window_output_shape(
    x_dims: list[int | None],
    fmt: str,
    n: int,
    ksize: Sequence[int | None],
    out_channels: int | None,
    attrs: dict[str, Any],
    dilations_key: str | None = "dilations",
) -> TensorShape:
    """The output shape of a conv/pool node over x (in the node's data format)."""
    strides = [int(v) for v in attrs["strides"]]
    dil = [int(v) for v in attrs.get(dilations_key, [1] * (n + 2))] if dilations_key else None
    pads = explicit_pairs(attrs, fmt, n)
    spatial = spatial_axes(fmt, n)
    out = list(x_dims)
    for i, a in enumerate(spatial):
        out[a] = out_dim(
            x_dims[a],
            ksize[i],
            strides[a],
            dil[a] if dil else 1,
            attrs["padding"],
            pads[i],
        )
    out[channel_axis(fmt, n)] = out_channels
    return TensorShape(out)


def int_list(value: Any) -> list[int] | None:
    """A static list of ints from a Python list/tuple/array (None when it is a tensor)."""
    if isinstance(value, Tensor):
        return None
    if isinstance(value, TensorShape):
        return [int(d) if d is not None else -1 for d in value.as_list()]
    return [int(v) for v in np.asarray(value).reshape(-1)]
