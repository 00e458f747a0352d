"""Kernels over boxes in images: CropAndResize and its gradients (over xp), and on the CPU
DrawBoundingBoxes(V2), the NonMaxSuppression family and SampleDistortedBoundingBox(V2).

Crops are sampled for every box at once: the sampling positions are host arithmetic in TF's
float32 order, the pixels one gather per corner. Non-max suppression is sequential by nature
(each selection depends on the earlier ones): one Python step per selected box, its overlaps
with the remaining candidates computed as one array operation.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels.common import Compute, host_array, host_ints, invalid
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


# ---- non-max suppression -------------------------------------------------------------------
def _scalar(value: Any, what: str) -> Any:
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise invalid(f"{what} must be 0-D, got shape {list(arr.shape)}")
    return arr.item()


def _iou_rows(boxes: np.ndarray) -> Any:
    """f(i, js) -> IoU of box i with boxes js (TF's IOU, float32; empty boxes overlap 0)."""
    y0 = np.minimum(boxes[:, 0], boxes[:, 2])
    x0 = np.minimum(boxes[:, 1], boxes[:, 3])
    y1 = np.maximum(boxes[:, 0], boxes[:, 2])
    x1 = np.maximum(boxes[:, 1], boxes[:, 3])
    area = (y1 - y0) * (x1 - x0)

    def iou(i: int, js: np.ndarray) -> np.ndarray:
        ih = np.maximum(np.minimum(y1[i], y1[js]) - np.maximum(y0[i], y0[js]), F32(0))
        iw = np.maximum(np.minimum(x1[i], x1[js]) - np.maximum(x0[i], x0[js]), F32(0))
        inter = ih * iw
        union = area[i] + area[js] - inter
        ok = (area[i] > 0) & (area[js] > 0)
        return np.where(ok, inter / np.where(ok, union, F32(1)), F32(0)).astype(F32)

    return iou


def non_max_suppression(
    similarity: Any,
    scores: np.ndarray,
    max_output: int,
    threshold: float,
    score_threshold: float,
    soft_sigma: float = 0.0,
) -> tuple[list[int], list[float]]:
    """TF's DoNonMaxSuppressionOp: greedy selection by score (ties: lower index first);
    hard suppression above the threshold, or Gaussian score decay when soft_sigma > 0."""
    scores = scores.astype(F32)
    order = [i for i in np.argsort(-scores, kind="stable").tolist() if scores[i] > score_threshold]
    selected: list[int] = []
    selected_scores: list[float] = []
    if not (soft_sigma > 0):
        remaining = np.asarray(order, np.int64)
        while remaining.size and len(selected) < max_output:
            best = int(remaining[0])
            selected.append(best)
            selected_scores.append(float(scores[best]))
            rest = remaining[1:]
            remaining = rest[similarity(best, rest) <= threshold]
        return selected, selected_scores
    # Soft-NMS: a candidate whose score decayed goes back into the queue.
    scale = F32(-0.5) / F32(soft_sigma)
    queue = [(-float(scores[i]), i, float(scores[i]), 0) for i in order]
    import heapq

    heapq.heapify(queue)
    while queue and len(selected) < max_output:
        _, index, score, begin = heapq.heappop(queue)
        original = score
        js = np.asarray(selected[begin:][::-1], np.int64)
        for sim in similarity(index, js).tolist() if js.size else []:
            # Soft-NMS decays by exp(-sim^2 / (2 sigma)) whatever the threshold.
            score = float(F32(score) * np.exp(scale * F32(sim) * F32(sim)))
            if score <= score_threshold:
                break
        if score == original:
            selected.append(index)
            selected_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(queue, (-score, index, score, len(selected)))
    return selected, selected_scores


def _nms_inputs(ins: list[Any], overlaps: bool = False) -> tuple[np.ndarray, np.ndarray, int]:
    boxes = np.asarray(ins[0], np.float32)
    scores = np.asarray(ins[1], np.float32)
    if overlaps:
        if boxes.ndim != 2 or boxes.shape[0] != boxes.shape[1]:
            raise invalid(f"overlaps must be square, got shape {list(boxes.shape)}")
    elif boxes.ndim != 2:
        raise invalid(f"boxes must be 2-D{list(boxes.shape)}")
    elif boxes.shape[1] != 4:
        raise invalid(f"boxes must have 4 columns{list(boxes.shape)}")
    if scores.ndim != 1 or scores.shape[0] != boxes.shape[0]:
        raise invalid(f"scores has incompatible shape{list(scores.shape)}")
    max_output = int(_scalar(ins[2], "max_output_size"))
    return boxes, scores, max_output


def _iou_threshold(value: Any, what: str = "iou_threshold") -> float:
    threshold = float(_scalar(value, what))
    if not 0 <= threshold <= 1:
        raise invalid(f"{what} must be in [0, 1]")
    return threshold


def _nms_kernel(op: str, outputs: str) -> None:
    """NonMaxSuppression V1..V5: the inputs after max_output_size differ by version."""

    @kernel(op, devices=CPU_ONLY)
    def factory(node: Any, xp: Any) -> Compute:
        pad = bool(node.attrs.get("pad_to_max_output_size", False))

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            boxes, scores, max_output = _nms_inputs(ins)
            if op == "NonMaxSuppression":
                threshold = float(node.attrs.get("iou_threshold", 0.5))
                if not 0 <= threshold <= 1:
                    raise invalid("iou_threshold must be in [0, 1]")
            else:
                threshold = _iou_threshold(ins[3])
            score_threshold = float(_scalar(ins[4], "score_threshold")) if len(ins) > 4 else -np.inf
            sigma = float(_scalar(ins[5], "soft_nms_sigma")) if len(ins) > 5 else 0.0
            if sigma < 0:
                raise invalid("soft_nms_sigma must be non-negative")
            picked, picked_scores = non_max_suppression(
                _iou_rows(boxes), scores, max_output, threshold, score_threshold, sigma
            )
            return _nms_outputs(picked, picked_scores, max_output, pad, outputs)

        return compute


def _nms_outputs(
    picked: list[int], picked_scores: list[float], max_output: int, pad: bool, outputs: str
) -> tuple[Any, ...]:
    valid = len(picked)
    if pad and valid < max_output:
        picked = picked + [0] * (max_output - valid)
        picked_scores = picked_scores + [0.0] * (max_output - valid)
    indices = np.asarray(picked, np.int32)
    out: list[Any] = [indices]
    if "s" in outputs:
        out.append(np.asarray(picked_scores, np.float32))
    if "v" in outputs:
        out.append(np.asarray(valid, np.int32))
    return tuple(out)


_nms_kernel("NonMaxSuppression", "i")
_nms_kernel("NonMaxSuppressionV2", "i")
_nms_kernel("NonMaxSuppressionV3", "i")
_nms_kernel("NonMaxSuppressionV4", "iv")
_nms_kernel("NonMaxSuppressionV5", "isv")


@kernel("NonMaxSuppressionWithOverlaps", devices=CPU_ONLY)
def nms_with_overlaps(node: Any, xp: Any) -> Compute:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        overlaps, scores, max_output = _nms_inputs(ins, overlaps=True)
        threshold = float(_scalar(ins[3], "overlap_threshold"))
        score_threshold = float(_scalar(ins[4], "score_threshold"))

        def similarity(i: int, js: np.ndarray) -> np.ndarray:
            return overlaps[i, js]

        picked, _ = non_max_suppression(similarity, scores, max_output, threshold, score_threshold)
        return (np.asarray(picked, np.int32),)

    return compute


# ---- sample_distorted_bounding_box ---------------------------------------------------------
class _Rect:
    __slots__ = ("x0", "x1", "y0", "y1")

    def __init__(self, x0: int, y0: int, x1: int, y1: int) -> None:
        self.x0, self.y0, self.x1, self.y1 = x0, y0, x1, y1

    def area(self) -> int:
        return (self.x1 - self.x0) * (self.y1 - self.y0)

    def intersect(self, other: _Rect) -> _Rect:
        x0, y0 = max(self.x0, other.x0), max(self.y0, other.y0)
        x1, y1 = min(self.x1, other.x1), min(self.y1, other.y1)
        if x0 > x1 or y0 > y1:
            return _Rect(0, 0, 0, 0)
        return _Rect(x0, y0, x1, y1)


def _lrint(value: Any) -> int:
    return int(np.rint(F32(value)))


def _random_crop(
    rng: np.random.Generator,
    width: int,
    height: int,
    aspect: float,
    min_rel: float,
    max_rel: float,
) -> _Rect | None:
    """TF's GenerateRandomCrop: a crop of the aspect ratio whose area is in range, or None."""
    min_area = F32(min_rel) * F32(width) * F32(height)
    max_area = F32(max_rel) * F32(width) * F32(height)
    h = _lrint(np.sqrt(min_area / F32(aspect)))
    max_h = _lrint(np.sqrt(max_area / F32(aspect)))
    if _lrint(max_h * F32(aspect)) > width:
        max_h = int((width + 0.5 - 0.0000001) / aspect)
    max_h = min(max_h, height)
    h = min(h, max_h)
    if h < max_h:
        h += int(rng.integers(0, max_h - h + 1))
    w = _lrint(h * F32(aspect))
    area = F32(w * h)
    if area < min_area:
        h += 1
        w = _lrint(h * F32(aspect))
        area = F32(w * h)
    if area > max_area:
        h -= 1
        w = _lrint(h * F32(aspect))
        area = F32(w * h)
    if area < min_area or area > max_area or w > width or h > height or w <= 0 or h <= 0:
        return None
    y = int(rng.integers(0, height - h)) if h < height else 0
    x = int(rng.integers(0, width - w)) if w < width else 0
    return _Rect(x, y, x + w, y + h)


def _covers(crop: _Rect, min_covered: float, boxes: list[_Rect]) -> bool:
    if crop.area() < 1:
        return False
    for box in boxes:
        area = box.area()
        if area < 1:
            continue
        if F32(crop.intersect(box).area()) / F32(area) >= F32(min_covered):
            return True
    return False


def _range_attr(node: Any, name: str, default: list[float], what: str) -> tuple[float, float]:
    values = [float(v) for v in node.attrs.get(name, default)]
    if len(values) != 2:
        raise invalid(f"{what} range field must be of size 2")
    return values[0], values[1]


def _sample_distorted(version: int) -> None:
    op = "SampleDistortedBoundingBox" + ("V2" if version == 2 else "")

    @kernel(op, devices=CPU_ONLY)
    def factory(node: Any, xp: Any) -> Compute:
        seed, seed2 = int(node.attrs.get("seed", 0)), int(node.attrs.get("seed2", 0))
        rng = np.random.default_rng(None if seed == seed2 == 0 else [seed, seed2])
        lock = threading.Lock()
        aspect_lo, aspect_hi = _range_attr(node, "aspect_ratio_range", [0.75, 1.33], "Aspect ratio")
        area_lo, area_hi = _range_attr(node, "area_range", [0.05, 1.0], "Area")
        if not (0 < area_lo <= 1 and 0 < area_hi <= 1):
            raise invalid("Area range must be in (0, 1]")  # checked at construction, as TF
        if aspect_lo <= 0 or aspect_hi <= 0:
            raise invalid("Aspect ratio range must be positive")
        attempts = int(node.attrs.get("max_attempts", 100))
        if attempts <= 0:
            raise invalid(f"Max attempts must be > 0, got {attempts}")
        use_image = bool(node.attrs.get("use_image_if_no_bounding_boxes", False))
        out_dtype = np.dtype(node.attrs["T"].as_numpy_dtype)

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            size = host_array(ins[0])
            if size.ndim != 1:
                raise invalid(f"image_size must be 1-dimensional{list(size.shape)}")
            if size.shape[0] != 3:
                raise invalid(f"image_size must contain 3 elements{list(size.shape)}")
            height, width = int(size[0]), int(size[1])
            raw = np.asarray(ins[1], np.float32)
            if raw.ndim != 3:
                raise invalid(
                    "input boxes must be 3-dimensional [batch, num_boxes, coords]: "
                    f"{list(raw.shape)}"
                )
            if raw.shape[-1] != 4:
                raise invalid(
                    f"bounding boxes must have shape [4] or [*, 4], got {list(raw.shape)}"
                )
            if version == 2:
                covered = float(_scalar(ins[2], "min_object_covered"))
            else:
                covered = float(node.attrs.get("min_object_covered", 0.1))
            if covered < 0:
                raise invalid(f"min_object_covered must be non-negative: {covered}")
            flat = raw.reshape(-1, 4)
            if flat.size and (flat.min() < 0 or flat.max() > 1):
                raise invalid("All bounding box coordinates must be in [0.0, 1.0]")
            boxes = [
                _Rect(
                    int(b[1] * F32(width)),
                    int(b[0] * F32(height)),
                    int(b[3] * F32(width)),
                    int(b[2] * F32(height)),
                )
                for b in flat
            ]
            if not boxes:
                if not use_image:
                    raise invalid(
                        "No bounding boxes provided as input. One must enable "
                        "use_image_if_no_bounding_boxes if you wish to not provide any "
                        "bounding boxes."
                    )
                boxes = [_Rect(0, 0, width, height)]
            crop = None
            with lock:
                for _ in range(attempts):
                    aspect = float(F32(rng.random()) * F32(aspect_hi - aspect_lo) + F32(aspect_lo))
                    found = _random_crop(rng, width, height, aspect, area_lo, area_hi)
                    if found is not None and _covers(found, covered, boxes):
                        crop = found
                        break
            if crop is None:
                crop = _Rect(0, 0, width, height)
            begin = np.asarray([crop.y0, crop.x0, 0], out_dtype)
            extent = np.asarray([crop.y1 - crop.y0, crop.x1 - crop.x0, -1], out_dtype)
            bbox = np.asarray(
                [
                    [
                        [
                            crop.y0 / F32(height),
                            crop.x0 / F32(width),
                            crop.y1 / F32(height),
                            crop.x1 / F32(width),
                        ]
                    ]
                ],
                np.float32,
            )
            return begin, extent, bbox

        return compute


_sample_distorted(1)
_sample_distorted(2)


# ---- extract_glimpse -----------------------------------------------------------------------
@kernel("ExtractGlimpse", devices=CPU_ONLY)
def extract_glimpse(node: Any, xp: Any) -> Compute:
    """Windows of the images at the offsets (TF's GlimpseExtractionOp): where a window leaves
    the image it shows noise (uniform in the image's range, Gaussian with its mean and
    deviation, or zeros), drawn from this node's generator."""
    centered = bool(node.attrs.get("centered", True))
    normalized = bool(node.attrs.get("normalized", True))
    noise = str(node.attrs.get("noise", "uniform"))
    if not bool(node.attrs.get("uniform_noise", True)) and noise == "uniform":
        noise = "gaussian"
    if noise not in ("uniform", "gaussian", "zero"):
        raise invalid(f"noise must be one of uniform, gaussian or zero, got {noise!r}")
    seed = [int(node.attrs.get("seed", 0)), int(node.attrs.get("seed2", 0))]
    rng = np.random.default_rng(None if seed == [0, 0] else seed)
    lock = threading.Lock()

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        images = np.asarray(ins[0], np.float32)
        size, offsets = np.asarray(ins[1]), np.asarray(ins[2], np.float32)
        if images.ndim != 4:
            raise invalid(f"input must be 4-dimensional{list(images.shape)}")
        if size.shape != (2,):
            raise invalid(f"size must be a vector of 2 elements, got {list(size.shape)}")
        batch, in_h, in_w, depth = images.shape
        if offsets.shape != (batch, 2):
            raise invalid(
                f"offsets must be [batch, 2] with batch {batch}, got {list(offsets.shape)}"
            )
        height, width = (int(v) for v in size)
        out = np.zeros((batch, height, width, depth), np.float32)
        for i in range(batch):  # one window per image
            y, x = (float(v) for v in offsets[i])
            if normalized:
                x, y = x * in_w, y * in_h
            if centered:  # offsets from the centre, in half-sizes
                x, y = x / 2.0 + in_w / 2.0, y / 2.0 + in_h / 2.0
            top = int(np.float32(y) - np.float32(height / 2.0))
            left = int(np.float32(x) - np.float32(width / 2.0))
            rows = range(max(top, 0), min(top + height, in_h))
            cols = range(max(left, 0), min(left + width, in_w))
            partial = top < 0 or left < 0 or top + height >= in_h or left + width >= in_w
            if partial and noise != "zero":
                image = images[i]
                with lock:
                    if noise == "uniform":
                        fill = rng.uniform(image.min(), image.max(), out[i].shape)
                    else:
                        fill = rng.normal(image.mean(), image.std(), out[i].shape)
                out[i] = fill
            if len(rows) and len(cols):
                out[i, rows.start - top : rows.stop - top, cols.start - left : cols.stop - left] = (
                    images[i, rows.start : rows.stop, cols.start : cols.stop]
                )
        return (out,)

    return compute


# ---- combined_non_max_suppression ----------------------------------------------------------
@kernel("CombinedNonMaxSuppression", devices=CPU_ONLY)
def combined_nms(node: Any, xp: Any) -> Compute:
    """Per image and class, greedy NMS (boxes shared by the classes or one set per class);
    the survivors of all classes by score, the first max_total_size kept, zeros after."""
    pad_per_class = bool(node.attrs.get("pad_per_class", False))
    clip = bool(node.attrs.get("clip_boxes", True))

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        boxes, scores = np.asarray(ins[0], np.float32), np.asarray(ins[1], np.float32)
        if boxes.ndim != 4 or boxes.shape[3] != 4:
            raise invalid(f"boxes must be 4-D [batch, boxes, q, 4], got {list(boxes.shape)}")
        if scores.ndim != 3 or scores.shape[:2] != boxes.shape[:2]:
            raise invalid(f"scores must be 3-D [batch, boxes, classes], got {list(scores.shape)}")
        batch, _, q, _ = boxes.shape
        classes = scores.shape[2]
        if q not in (1, classes):
            raise invalid("third dimension of boxes must be either 1 or num classes")
        per_class = int(_scalar(ins[2], "max_output_size_per_class"))
        total = int(_scalar(ins[3], "max_total_size"))
        if per_class <= 0 or total <= 0:
            raise invalid("max_output_size_per_class and max_total_size must be > 0")
        threshold = _iou_threshold(ins[4])
        score_threshold = float(_scalar(ins[5], "score_threshold"))
        width = min(total, per_class * classes) if pad_per_class else total
        out_boxes = np.zeros((batch, width, 4), np.float32)
        out_scores = np.zeros((batch, width), np.float32)
        out_classes = np.zeros((batch, width), np.float32)
        valid = np.zeros(batch, np.int32)
        for b in range(batch):  # one greedy selection per image and class
            found: list[tuple[float, int, int]] = []
            for c in range(classes):
                class_boxes = boxes[b, :, 0 if q == 1 else c]
                picked, picked_scores = non_max_suppression(
                    _iou_rows(class_boxes), scores[b, :, c], per_class, threshold, score_threshold
                )
                found += [(s, i, c) for i, s in zip(picked, picked_scores)]
            found.sort(key=lambda t: -t[0])
            found = found[:width]
            valid[b] = len(found)
            for k, (s, i, c) in enumerate(found):
                box = boxes[b, i, 0 if q == 1 else c]
                out_boxes[b, k] = np.clip(box, 0, 1) if clip else box
                out_scores[b, k] = s
                out_classes[b, k] = c
        return out_boxes, out_scores, out_classes, valid

    return compute
