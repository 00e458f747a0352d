"""The NonMaxSuppression family (V1-V5, WithOverlaps, CombinedNonMaxSuppression) on the CPU.

Greedy selection is sequential by nature (each pick depends on the earlier ones): one Python
step per candidate taken from the queue, its overlaps with the boxes selected so far one array
operation.
"""

from __future__ import annotations

import heapq
from typing import Any

import numpy as np

from tfcluster.kernels.common import Compute, invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel

F32 = np.float32


# ---- non-max suppression -------------------------------------------------------------------
def scalar_input(value: Any, what: str) -> Any:
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
    """TF 1.15's DoNonMaxSuppressionOp, step for step: the best-scored candidate is checked
    against the boxes selected since it was last checked (newest first); a similarity at or
    above the threshold drops it, otherwise each similarity decays its score by
    exp(-sim^2 / (2 sigma)) (no decay without sigma). Unchanged, it is selected; still above
    score_threshold, it goes back into the queue (a selected box so comes back once and meets
    itself)."""
    scores = scores.astype(F32)
    if max_output < 0:
        raise invalid("output size must be non-negative")
    scale = F32(-0.5) / F32(soft_sigma) if soft_sigma > 0 else F32(0.0)
    thr, floor = F32(threshold), F32(score_threshold)
    # (-score, index): the best score first, ties by index.
    queue = [(-float(scores[i]), i, F32(scores[i]), 0) for i in range(scores.size)]
    queue = [entry for entry in queue if entry[2] > floor]
    heapq.heapify(queue)
    selected: list[int] = []
    selected_scores: list[float] = []
    while queue and len(selected) < max_output:
        _, index, score, begin = heapq.heappop(queue)
        original = score
        hard = False
        newest_first = np.asarray(selected[begin:][::-1], np.int64)
        if newest_first.size:
            sims = similarity(index, newest_first).astype(F32)
            weights = np.exp(scale * sims * sims).astype(F32)
            weights = np.where(sims <= thr, weights, F32(0))
            # The running products, as TF multiplies them in: one float32 step each.
            running = np.cumprod(np.concatenate([[score], weights]).astype(F32), dtype=F32)[1:]
            stop_hard = np.flatnonzero(sims >= thr)
            stop_low = np.flatnonzero(running <= floor)
            last = len(sims) - 1
            first_hard = int(stop_hard[0]) if stop_hard.size else last + 1
            first_low = int(stop_low[0]) if stop_low.size else last + 1
            hard = first_hard <= first_low and first_hard <= last
            score = F32(running[min(first_hard, first_low, last)])
        begin = len(selected)
        if not hard:
            if score == original:
                selected.append(index)
                selected_scores.append(float(score))
            if score > floor:
                heapq.heappush(queue, (-float(score), index, score, begin))
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
    max_output = int(scalar_input(ins[2], "max_output_size"))
    return boxes, scores, max_output


def _iou_threshold(value: Any, what: str = "iou_threshold") -> float:
    threshold = float(scalar_input(value, what))
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
            score_threshold = (
                float(scalar_input(ins[4], "score_threshold")) if len(ins) > 4 else -np.inf
            )
            sigma = float(scalar_input(ins[5], "soft_nms_sigma")) if len(ins) > 5 else 0.0
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
        threshold = float(scalar_input(ins[3], "overlap_threshold"))
        score_threshold = float(scalar_input(ins[4], "score_threshold"))

        def similarity(i: int, js: np.ndarray) -> np.ndarray:
            return overlaps[i, js]

        picked, _ = non_max_suppression(similarity, scores, max_output, threshold, score_threshold)
        return (np.asarray(picked, np.int32),)

    return compute


def _greedy(
    similarity: Any, scores: np.ndarray, max_output: int, threshold: float, floor: float
) -> list[int]:
    """CombinedNonMaxSuppression's selection per class (its own loop in TF 1.15): candidates
    above floor by score, each kept unless it overlaps a kept one by more than threshold."""
    scores = scores.astype(F32)
    order = np.argsort(-scores, kind="stable")
    remaining = order[scores[order] > F32(floor)]
    kept: list[int] = []
    limit = min(max_output, scores.size)
    while remaining.size and len(kept) < limit:
        best = int(remaining[0])
        kept.append(best)
        rest = remaining[1:]
        remaining = rest[similarity(best, rest) <= F32(threshold)]
    return kept


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
        per_class = int(scalar_input(ins[2], "max_output_size_per_class"))
        total = int(scalar_input(ins[3], "max_total_size"))
        if per_class <= 0 or total <= 0:
            raise invalid("max_output_size_per_class and max_total_size must be > 0")
        threshold = _iou_threshold(ins[4])
        score_threshold = float(scalar_input(ins[5], "score_threshold"))
        width = min(total, per_class * classes) if pad_per_class else total
        out_boxes = np.zeros((batch, width, 4), np.float32)
        out_scores = np.zeros((batch, width), np.float32)
        out_classes = np.zeros((batch, width), np.float32)
        valid = np.zeros(batch, np.int32)
        for b in range(batch):  # one greedy selection per image and class
            found: list[tuple[float, int, int]] = []
            for c in range(classes):
                class_boxes = boxes[b, :, 0 if q == 1 else c]
                found += [
                    (float(scores[b, i, c]), i, c)
                    for i in _greedy(
                        _iou_rows(class_boxes),
                        scores[b, :, c],
                        per_class,
                        threshold,
                        score_threshold,
                    )
                ]
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
