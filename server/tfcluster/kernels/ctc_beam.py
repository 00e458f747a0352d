"""CTCBeamSearchDecoder: TF's CTCBeamSearchDecoder<> with its default (no language model)
scorer, step by step as ctc_beam_search.h runs it, so the beams it keeps and drops (and the
order-dependent ways it resets entries) are TF's.

Each frame's log-softmax is taken once over the whole batch (xp); the search itself is a
sequential walk over the beam (TF's is too), with each branch's children scored at once and
only those that can enter the beam visited one by one."""

from __future__ import annotations

import heapq
import math
from typing import Any

import numpy as np

from tfcluster.kernels.common import Compute, host_array, invalid, typed
from tfcluster.kernels.ctc import _check_inputs
from tfcluster.kernels.registry import CPU_ONLY, kernel

_NEG_INF = -math.inf


def _logaddexp(a: float, b: float) -> float:
    if a == _NEG_INF:
        return b
    if b == _NEG_INF:
        return a
    hi, lo = (a, b) if a > b else (b, a)
    return hi + math.log1p(math.exp(lo - hi))


class _Entry:
    __slots__ = (
        "children",
        "label",
        "new_blank",
        "new_label",
        "new_total",
        "old_blank",
        "old_label",
        "old_total",
        "parent",
    )

    def __init__(self, parent: _Entry | None, label: int) -> None:
        self.parent = parent
        self.label = label
        self.children: dict[int, _Entry] | None = None
        self.old_blank = self.old_label = self.old_total = _NEG_INF
        self.new_blank = self.new_label = self.new_total = _NEG_INF

    def active(self) -> bool:
        return self.new_total != _NEG_INF

    def reset_new(self) -> None:
        self.new_blank = self.new_label = self.new_total = _NEG_INF

    def label_seq(self, merge_repeated: bool) -> list[int]:
        labels: list[int] = []
        prev = -1
        node: _Entry | None = self
        while node is not None and node.parent is not None:
            if not merge_repeated or node.label != prev:
                labels.append(node.label)
            prev = node.label
            node = node.parent
        labels.reverse()
        return labels


class _Beam:
    """The search over one batch entry's frames."""

    def __init__(self, classes: int, beam_width: int) -> None:
        self.classes = classes
        self.blank = classes - 1
        self.width = beam_width
        self.labels = np.arange(classes - 1)
        root = _Entry(None, -1)
        root.new_total = 0.0
        root.new_blank = 0.0
        self.leaves: list[_Entry] = [root]

    def step(self, logp: np.ndarray) -> None:
        lp = logp.tolist()
        branches = sorted(self.leaves, key=lambda e: e.new_total, reverse=True)
        for b in branches:
            b.old_blank, b.old_label, b.old_total = b.new_blank, b.new_label, b.new_total
        blank_p = lp[self.blank]
        for b in branches:
            parent = b.parent
            if parent is not None:
                if parent.active():
                    prev = parent.old_blank if b.label == parent.label else parent.old_total
                    b.new_label = _logaddexp(b.new_label, prev)
                b.new_label += lp[b.label]
            b.new_blank = b.old_total + blank_p
            b.new_total = _logaddexp(b.new_blank, b.new_label)
        # The beam as a min-heap on each leaf's total (totals do not change while children are
        # added; an evicted leaf is popped, and its probabilities reset, as TF's TopN does).
        heap = [(e.new_total, i, e) for i, e in enumerate(branches)]
        heapq.heapify(heap)
        order = len(heap)

        def candidate(total: float) -> bool:
            return total > _NEG_INF and (len(heap) < self.width or total > heap[0][0])

        # Every child's score at once: a child that cannot beat the beam's bottom now never
        # can (the bottom only rises), so only the others and existing children are visited.
        old_total = np.array([b.old_total for b in branches])
        old_blank = np.array([b.old_blank for b in branches])
        own = np.array([b.label for b in branches])
        label_p = logp[: self.classes - 1]
        scores = label_p[None, :] + np.where(
            self.labels[None, :] == own[:, None], old_blank[:, None], old_total[:, None]
        )
        floor = heap[0][0] if len(heap) >= self.width else _NEG_INF
        mask = scores > floor
        cols = np.nonzero(mask)[1].tolist()
        ends = np.cumsum(mask.sum(axis=1)).tolist()
        hopeful = [cols[a:e] for a, e in zip([0, *ends[:-1]], ends)]
        rows = scores.tolist()
        width = self.width
        for i, b in enumerate(branches):
            if not candidate(b.old_total):
                continue
            if b.children is None:
                b.children = {}
            children = b.children
            visit = hopeful[i]
            if children:
                visit = sorted(set(visit) | set(children))
            row = rows[i]
            for label in visit:
                child = children.get(label)
                if child is not None and child.new_total != _NEG_INF:
                    continue  # active: already in the beam
                score = row[label]
                if score > _NEG_INF and (len(heap) < width or score > heap[0][0]):
                    if child is None:
                        child = children[label] = _Entry(b, label)
                    child.new_blank = _NEG_INF
                    child.new_label = child.new_total = score
                    if len(heap) == width:
                        heapq.heappop(heap)[2].reset_new()
                    heapq.heappush(heap, (score, order, child))
                    order += 1
                elif child is not None:
                    child.old_blank = child.old_label = child.old_total = _NEG_INF
                    child.reset_new()
        self.leaves = [e for _, _, e in heap]

    def top_paths(self, n: int, merge_repeated: bool) -> tuple[list[list[int]], list[float]]:
        if n > len(self.leaves):
            raise invalid("Less leaves in the beam search than requested.")
        best = sorted(self.leaves, key=lambda e: e.new_total, reverse=True)[:n]
        return [e.label_seq(merge_repeated) for e in best], [e.new_total for e in best]


def _log_softmax(xp: Any, x: Any) -> Any:
    shifted = x - xp.max(x, axis=-1, keepdims=True)
    return shifted - xp.log(xp.sum(xp.exp(shifted), axis=-1, keepdims=True))


@kernel("CTCBeamSearchDecoder", devices=CPU_ONLY)
def ctc_beam_search_decoder(node: Any, xp: Any) -> Compute:
    width = int(node.attrs["beam_width"])
    paths = int(node.attrs["top_paths"])
    merge = bool(node.attrs.get("merge_repeated", True))
    cast = typed(node, xp)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        inputs = host_array(ins[0])
        seq_len = host_array(ins[1])
        _, batch, classes = _check_inputs(inputs, seq_len)
        if paths > width:
            raise invalid(f"top_paths must be <= beam_width, got {paths} > {width}")
        logp = _log_softmax(np, inputs.astype(np.float64))
        decoded: list[list[list[int]]] = [[] for _ in range(paths)]
        log_probs = np.zeros((batch, paths), dtype=np.float64)
        for b in range(batch):
            beam = _Beam(classes, width)
            for t in range(int(seq_len[b])):
                beam.step(logp[t, b])
            seqs, probs = beam.top_paths(paths, merge)
            for j in range(paths):
                decoded[j].append(seqs[j])
            log_probs[b] = probs
        outs: list[Any] = []
        shapes, values = [], []
        for j in range(paths):
            rows = [(b, i) for b, seq in enumerate(decoded[j]) for i in range(len(seq))]
            outs.append(np.asarray(rows, dtype=np.int64).reshape(-1, 2))
            values.append(np.asarray([v for seq in decoded[j] for v in seq], dtype=np.int64))
            longest = max((len(seq) for seq in decoded[j]), default=0)
            shapes.append(np.asarray([batch, longest], dtype=np.int64))
        return (*outs, *values, *shapes, cast(log_probs))

    return compute
