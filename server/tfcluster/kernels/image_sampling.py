"""Random sampling of image windows on the CPU: SampleDistortedBoundingBox(V2) (TF's
rejection sampling of crops that cover enough of a box) and ExtractGlimpse (windows at offsets,
noise where they leave the image). A crop's draws are TF's: the node's Philox stream read
as SimplePhilox reads it."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tfcluster.kernels._philox_stream import PhiloxStream
from tfcluster.kernels.common import Compute, host_array, invalid
from tfcluster.kernels.image_nms import scalar_input as _scalar
from tfcluster.kernels.random import _Generator as PhiloxGenerator
from tfcluster.kernels.registry import CPU_ONLY, kernel

F32 = np.float32


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
    rng: PhiloxStream,
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
        h += rng.uniform32(max_h - h + 1)
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
    y = rng.uniform32(height - h) if h < height else 0
    x = rng.uniform32(width - w) if w < width else 0
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
        # TF's GuardedPhiloxRandom from (seed, seed2): each run reserves four words per attempt.
        generator = PhiloxGenerator(node)
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
            rng = PhiloxStream(generator.reserve(attempts))
            for _ in range(attempts):
                aspect = float(rng.rand_float() * F32(aspect_hi - aspect_lo) + F32(aspect_lo))
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
