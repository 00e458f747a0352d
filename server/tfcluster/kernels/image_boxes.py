"""Kernels over boxes in images: CropAndResize and its gradients (over xp; the sampling
positions host arithmetic in TF's float32 order, the pixels one gather per corner), and
DrawBoundingBoxes(V2) on the CPU."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.common import Compute, host_ints, invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel

F32 = np.float32


# ---- crop_and_resize -----------------------------------------------------------------------
def _check_boxes(boxes: np.ndarray, box_index: np.ndarray, batch: int | None) -> None:
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise invalid(f"boxes must be 2-D and have 4 columns, got shape {list(boxes.shape)}")
    if box_index.ndim != 1 or box_index.shape[0] != boxes.shape[0]:
        raise invalid(
            f"box_index has incompatible shape {list(box_index.shape)} for {boxes.shape[0]} boxes"
        )
    if batch is not None and box_index.size and (box_index.min() < 0 or box_index.max() >= batch):
        raise errors.OutOfRangeError(None, None, "box_index has values outside [0, batch_size)")


def _crop_size(value: Any) -> tuple[int, int]:
    arr = np.asarray(value)
    if arr.ndim != 1 or arr.size != 2:
        raise invalid(f"crop_size must be a 1-D tensor of length 2, got shape {list(arr.shape)}")
    h, w = host_ints(arr)
    if h <= 0 or w <= 0:
        raise invalid("crop dimensions must be positive")
    return h, w


def _crop_axis(lo: np.ndarray, hi: np.ndarray, crop: int, size: int) -> np.ndarray:
    """[boxes, crop] source positions along one axis (TF's in_y / in_x), float32."""
    if crop > 1:
        scale = (hi - lo) * F32(size - 1) / F32(crop - 1)
        steps = np.arange(crop, dtype=F32)
        return (lo * F32(size - 1))[:, None] + steps[None, :] * scale[:, None]
    mid = (0.5 * (lo.astype(np.float64) + hi) * (size - 1)).astype(F32)
    return mid[:, None]


def _crop_geometry(
    boxes: np.ndarray, crop_h: int, crop_w: int, height: int, width: int
) -> tuple[np.ndarray, np.ndarray]:
    boxes = boxes.astype(F32)
    in_y = _crop_axis(boxes[:, 0], boxes[:, 2], crop_h, height)
    in_x = _crop_axis(boxes[:, 1], boxes[:, 3], crop_w, width)
    return in_y, in_x


def _corners(pos: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(valid, low index, high index, lerp) with indices clamped so gathers stay in range."""
    valid = (pos >= 0) & (pos <= size - 1)
    floor = np.floor(pos)
    low = np.clip(floor, 0, size - 1).astype(np.int64)
    high = np.clip(np.ceil(pos), 0, size - 1).astype(np.int64)
    return valid, low, high, (pos - floor).astype(F32)


def _pixels(xp: Any, image: Any, box_index: np.ndarray) -> Any:
    """pick(rows [boxes, h], cols [boxes, w]) -> float32 [boxes, h, w, depth]: one gather of
    whole pixels from the image seen as a list of pixels."""
    batch, height, width, depth = image.shape
    flat = image.reshape(batch * height * width, depth)
    base = box_index.astype(np.int64)[:, None, None] * height

    def pick(rows: np.ndarray, cols: np.ndarray) -> Any:
        index = ((base + rows[:, :, None]) * width + cols[:, None, :]).reshape(-1)
        values = xp.take(flat, xp.asarray(index), axis=0).astype(F32, copy=False)
        return values.reshape(rows.shape[0], rows.shape[1], cols.shape[1], depth)

    return pick


def _method(node: Any) -> str:
    method = node.attrs.get("method", "bilinear")
    method = method.decode() if isinstance(method, bytes) else str(method)
    if method not in ("bilinear", "nearest"):
        raise invalid(f"method must be 'bilinear' or 'nearest', got {method!r}")
    return method


@kernel("CropAndResize", host=(1, 2, 3))
def crop_and_resize(node: Any, xp: Any) -> Compute:
    method = _method(node)
    extrapolation = F32(node.attrs.get("extrapolation_value", 0.0))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        image = xp.asarray(ins[0])
        if image.ndim != 4:
            raise invalid(f"input image must be 4-D, got shape {list(image.shape)}")
        batch, height, width, depth = image.shape
        if height <= 0 or width <= 0:
            raise invalid("image dimensions must be positive")
        boxes, box_index = np.asarray(ins[1]), np.asarray(ins[2])
        _check_boxes(boxes, box_index, batch)
        crop_h, crop_w = _crop_size(ins[3])
        in_y, in_x = _crop_geometry(boxes, crop_h, crop_w, height, width)
        vy, y0, y1, ly = _corners(in_y, height)
        vx, x0, x1, lx = _corners(in_x, width)
        pick = _pixels(xp, image, box_index)
        if method == "nearest":
            ry = np.clip(np.floor(in_y + F32(0.5)), 0, height - 1).astype(np.int64)
            rx = np.clip(np.floor(in_x + F32(0.5)), 0, width - 1).astype(np.int64)
            out = pick(ry, rx)
        else:
            # Column weights repeated per channel, on rows of crop_w * depth values (a weight
            # broadcast over a pixel's channels would run numpy's loop depth values at a time).
            nb, crop = boxes.shape[0], crop_h
            wx = xp.asarray(np.repeat(lx, depth, axis=1))[:, None, :]
            wy = xp.asarray(ly)[:, :, None]
            tl, tr = (v.reshape(nb, crop, -1) for v in (pick(y0, x0), pick(y0, x1)))
            bl, br = (v.reshape(nb, crop, -1) for v in (pick(y1, x0), pick(y1, x1)))
            upper = tl + (tr - tl) * wx
            lower = bl + (br - bl) * wx
            out = upper + (lower - upper) * wy
        out = out.reshape(boxes.shape[0], crop_h, crop_w, depth)
        valid = xp.asarray(vy[:, :, None, None] & vx[:, None, :, None])
        out = xp.where(valid, out, extrapolation)
        return (out.reshape(boxes.shape[0], crop_h, crop_w, depth).astype(F32),)

    return compute


@kernel("CropAndResizeGradImage", host=(1, 2, 3))
def crop_and_resize_grad_image(node: Any, xp: Any) -> Compute:
    method = _method(node)
    dtype = np.dtype(node.attrs["T"].as_numpy_dtype)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        grads = xp.asarray(ins[0]).astype(F32)
        boxes, box_index = np.asarray(ins[1]), np.asarray(ins[2])
        size = host_ints(ins[3])
        if len(size) != 4:
            raise invalid(f"image_size must be a 1-D tensor with 4 elements, got {size}")
        batch, height, width, depth = size
        if height <= 0 or width <= 0:
            raise invalid("image dimensions must be positive")
        _check_boxes(boxes, box_index, batch)
        crop_h, crop_w = grads.shape[1:3]
        in_y, in_x = _crop_geometry(boxes, crop_h, crop_w, height, width)
        vy, y0, y1, ly = _corners(in_y, height)
        vx, x0, x1, lx = _corners(in_x, width)
        valid = (vy[:, :, None] & vx[:, None, :]).astype(F32)[..., None]
        g = grads * xp.asarray(valid)
        base = box_index.astype(np.int64)[:, None, None] * height
        out = xp.zeros((batch * height * width, depth), F32)
        if method == "nearest":
            ry = np.clip(np.floor(in_y + F32(0.5)), 0, height - 1).astype(np.int64)
            rx = np.clip(np.floor(in_x + F32(0.5)), 0, width - 1).astype(np.int64)
            flat = ((base + ry[:, :, None]) * width + rx[:, None, :]).reshape(-1)
            xp.add.at(out, xp.asarray(flat), g.reshape(-1, depth))
        else:
            wy = ly[:, :, None, None]
            wx = lx[:, None, :, None]
            for rows, row_w in ((y0, F32(1) - wy), (y1, wy)):
                for cols, col_w in ((x0, F32(1) - wx), (x1, wx)):
                    flat = ((base + rows[:, :, None]) * width + cols[:, None, :]).reshape(-1)
                    share = g * xp.asarray((row_w * col_w).astype(F32))
                    xp.add.at(out, xp.asarray(flat), share.reshape(-1, depth))
        return (out.reshape(batch, height, width, depth).astype(dtype),)

    return compute


@kernel("CropAndResizeGradBoxes", host=(2, 3))
def crop_and_resize_grad_boxes(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        grads = xp.asarray(ins[0]).astype(F32)
        image = xp.asarray(ins[1])
        boxes, box_index = np.asarray(ins[2]), np.asarray(ins[3])
        batch, height, width, _ = image.shape
        _check_boxes(boxes, box_index, batch)
        crop_h, crop_w = grads.shape[1:3]
        in_y, in_x = _crop_geometry(boxes, crop_h, crop_w, height, width)
        vy, y0, y1, ly = _corners(in_y, height)
        vx, x0, x1, lx = _corners(in_x, width)
        pick = _pixels(xp, image, box_index)
        tl, tr = pick(y0, x0), pick(y0, x1)
        bl, br = pick(y1, x0), pick(y1, x1)
        wx = xp.asarray(lx)[:, None, :, None]
        wy = xp.asarray(ly)[:, :, None, None]
        valid = xp.asarray((vy[:, :, None] & vx[:, None, :])[..., None])
        grad_y = ((F32(1) - wx) * (bl - tl) + wx * (br - tr)) * grads
        grad_x = ((F32(1) - wy) * (tr - tl) + wy * (br - bl)) * grads
        grad_y = xp.where(valid, grad_y, F32(0))
        grad_x = xp.where(valid, grad_x, F32(0))
        sum_y = xp.sum(grad_y, axis=3)  # [boxes, crop_h, crop_w]
        sum_x = xp.sum(grad_x, axis=3)
        ys = np.arange(crop_h, dtype=F32)
        xs = np.arange(crop_w, dtype=F32)
        if crop_h > 1:
            ratio = F32(height - 1) / F32(crop_h - 1)
            dy1, dy2 = F32(height - 1) - ys * ratio, ys * ratio
        else:
            dy1 = dy2 = np.full(1, F32(0.5 * (height - 1)))
        if crop_w > 1:
            ratio = F32(width - 1) / F32(crop_w - 1)
            dx1, dx2 = F32(width - 1) - xs * ratio, xs * ratio
        else:
            dx1 = dx2 = np.full(1, F32(0.5 * (width - 1)))

        def along(total: Any, weights: np.ndarray, axis: int) -> Any:
            shape = (1, -1, 1) if axis == 1 else (1, 1, -1)
            return xp.sum(total * xp.asarray(weights.reshape(shape)), axis=(1, 2))

        out = xp.stack(
            [
                along(sum_y, dy1, 1),
                along(sum_x, dx1, 2),
                along(sum_y, dy2, 1),
                along(sum_x, dx2, 2),
            ],
            axis=1,
        )
        return (out.astype(F32),)

    return compute


# ---- draw_bounding_boxes -------------------------------------------------------------------
_DEFAULT_COLORS = np.array(
    [
        [1, 1, 0, 1],
        [0, 0, 1, 1],
        [1, 0, 0, 1],
        [0, 1, 0, 1],
        [0.5, 0, 0.5, 1],
        [0.5, 0.5, 0, 1],
        [0.5, 0, 0, 1],
        [0, 0, 0.5, 1],
        [0, 1, 1, 1],
        [1, 0, 1, 1],
    ],
    np.float32,
)


def _draw_boxes(images: np.ndarray, boxes: np.ndarray, colors: np.ndarray) -> np.ndarray:
    if images.ndim != 4:
        raise invalid(f"The rank of the images should be 4{list(images.shape)}")
    batch, height, width, depth = images.shape
    if depth not in (1, 2, 3, 4):
        raise invalid("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)")
    if boxes.ndim != 3 or boxes.shape[0] != batch or boxes.shape[2] != 4:
        raise invalid(f"boxes must be [batch, num_boxes, 4], got {list(boxes.shape)}")
    if colors.shape[1] < depth:
        raise invalid(f"colors must have at least {depth} channels, got {colors.shape[1]}")
    canvas = images.copy()
    table = colors.astype(images.dtype)
    for b in range(batch):
        for n in range(boxes.shape[1]):
            color = table[n % table.shape[0], :depth]
            y0, x0, y1, x1 = boxes[b, n].astype(F32)
            top, left = int(y0 * F32(height - 1)), int(x0 * F32(width - 1))
            bottom, right = int(y1 * F32(height - 1)), int(x1 * F32(width - 1))
            if top > bottom or left > right:
                continue  # TF logs "Bounding box ... is inverted and will not be drawn"
            if top >= height or bottom < 0 or left >= width or right < 0:
                continue  # completely outside the image
            rows = slice(max(top, 0), min(bottom, height - 1) + 1)
            cols = slice(max(left, 0), min(right, width - 1) + 1)
            if top >= 0:
                canvas[b, top, cols] = color
            if bottom < height:
                canvas[b, bottom, cols] = color
            if left >= 0:
                canvas[b, rows, left] = color
            if right < width:
                canvas[b, rows, right] = color
    return canvas


@kernel("DrawBoundingBoxes", devices=CPU_ONLY)
def draw_bounding_boxes(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        images = np.asarray(ins[0])
        colors = _DEFAULT_COLORS.copy()
        if images.ndim == 4 and images.shape[3] == 1:
            colors[:, 0] = 1  # grayscale boxes are white
        return (_draw_boxes(images, np.asarray(ins[1]), colors),)

    return compute


@kernel("DrawBoundingBoxesV2", devices=CPU_ONLY)
def draw_bounding_boxes_v2(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        images = np.asarray(ins[0])
        colors = np.asarray(ins[2], np.float32)
        if colors.size == 0:
            colors = _DEFAULT_COLORS.copy()
            if images.ndim == 4 and images.shape[3] == 1:
                colors[:, 0] = 1
        elif colors.ndim != 2:
            raise invalid(f"colors must be a 2-D tensor, got {list(colors.shape)}")
        return (_draw_boxes(images, np.asarray(ins[1]), colors),)

    return compute
