"""Pooling windows over the batch and depth dimensions, as TF 1.15's CPU pooling kernels
take them: nothing pools over the batch (refused when the kernel is made), the 3-D pools and
MaxPool's gradient refuse depth, and a 2-D pool checks its depth window when it runs (TF's
PoolParameters): a MaxPool over depth alone, its window equal to its stride and dividing the
depth, takes each group of channels' maximum; AvgPool refuses any depth window."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import errors
from tfcluster.kernels._window import Window

BATCH = "Pooling is not yet supported on the batch dimension."
DEPTH_3D = "Pooling is not yet supported on the depth dimension."
DEPTH_MAX_POOL_GRAD = "MaxPoolingGrad is not yet supported on the depth dimension."
DEPTH_AVG_POOL = "Non-spatial pooling is not yet supported. Volunteers? :)"


def _unimplemented(message: str) -> errors.OpError:
    return errors.UnimplementedError(None, None, message)


def refuse_batch(win: Window) -> None:
    if any(batch != 1 for batch, _ in win.outer.values()):
        raise _unimplemented(BATCH)


def refuse_depth(win: Window, message: str) -> None:
    if any(depth != 1 for _, depth in win.outer.values()):
        raise _unimplemented(message)


def depth_window(win: Window, depth: int) -> int:
    """The depth window of a 2-D pool, checked as TF's PoolParameters checks it: 1 for a
    spatial pool (its depth stride is not used), else one that pools depth alone."""
    window = win.outer.get("ksize", (1, 1))[1]
    if window == 1:
        return 1
    assert win.ksize is not None
    if any(k != 1 for k in win.ksize):
        raise _unimplemented(
            "MaxPooling supports exactly one of pooling across depth or pooling across "
            "width/height."
        )
    if depth % window:
        raise _unimplemented(
            "Depthwise max pooling requires the depth window to evenly divide the input depth"
        )
    if win.outer.get("strides", (1, 1))[1] != window:
        raise _unimplemented(
            "Depthwise max pooling requires the depth window to equal the depth stride"
        )
    return window


def channels(win: Window, x: Any) -> int:
    return int(x.shape[1 if win.channels_first else -1])


def depthwise_max(xp: Any, win: Window, x: Any, window: int) -> Any:
    """Each run of `window` channels' maximum (channels in the node's data format)."""
    axis = 1 if win.channels_first else x.ndim - 1
    shape = list(x.shape)
    grouped = (*shape[:axis], shape[axis] // window, window, *shape[axis + 1 :])
    return xp.max(xp.reshape(x, grouped), axis=axis + 1)
