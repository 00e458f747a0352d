"""The order TF 1.15's CPU TopKV2 gives its k indices when `sorted=False` (1 < k < the row's
length): the layout of its bounded heap (gtl::TopN over the column indices, a "better than"
comparator that breaks ties by the lower index) after every column was pushed, as libstdc++'s
make_heap / pop_heap leave it. The heap's front is its worst member; TF 1.15's TopN holds k + 1
slots, the last one a scratch slot: the first k + 1 columns are made a heap and the worst popped
to the scratch slot; a later column that is better than the front is written to the scratch slot
and the heap popped again (the new column sifts in, the old front drops to the scratch slot).
The k slots before the scratch slot are the result.

Columns that cannot enter the heap (not better than its worst member) change nothing, so they
are skipped by a numpy scan; only admitted columns move entries, in Python."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Better = Callable[[int, int], bool]


def _better(row: np.ndarray) -> Better:
    """TF's stable_comp: a is better than b when its value is larger, or equal (or either is
    NaN) and its index is lower. (Compared as Python numbers, the same order and faster, unless
    the row is long: few of its values are ever compared.)"""
    values: Any = row.tolist() if row.shape[0] <= 1 << 16 else row

    def better(a: int, b: int) -> bool:
        va, vb = values[a], values[b]
        if vb < va:
            return True
        if vb > va:
            return False
        return a < b

    return better


def _push_up(heap: list[int], hole: int, top: int, value: int, less: Better) -> None:
    """libstdc++'s __push_heap: value moves up from hole while its parent is 'less'."""
    parent = (hole - 1) // 2
    while hole > top and less(heap[parent], value):
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = value


def _adjust(heap: list[int], hole: int, length: int, value: int, less: Better) -> None:
    """libstdc++'s __adjust_heap: the hole sinks to a leaf along the larger children, then value
    is pushed up from there."""
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(heap[child], heap[child - 1]):
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    _push_up(heap, hole, top, value, less)


def _make_heap(heap: list[int], less: Better) -> None:
    length = len(heap)
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust(heap, parent, length, heap[parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(heap: list[int], less: Better) -> None:
    """The front goes to the back; the rest stays a heap."""
    last = len(heap) - 1
    if last < 1:
        return
    value = heap[last]
    heap[last] = heap[0]
    _adjust(heap, 0, last, value, less)


def _first_admitted(row: np.ndarray, start: int, worst: int) -> int:
    """The first column from start whose value is larger than the heap's worst member's (a
    later column never wins a tie), or len(row); scanned in growing windows."""
    threshold = row[worst]
    n = row.shape[0]
    if start < n and row[start] > threshold:  # a run of admitted columns (rising values)
        return start
    width = 64
    while start < n:
        window = row[start : start + width] > threshold
        if window.any():
            return start + int(np.argmax(window))
        start += width
        width *= 4
    return n


def unsorted_row(row: np.ndarray, k: int) -> list[int]:
    """The k column indices of one row in gtl::TopN's unsorted order (1 < k < len(row))."""
    less = _better(row)
    heap = list(range(k + 1))
    _make_heap(heap, less)
    _pop_heap(heap, less)
    column = _first_admitted(row, k + 1, heap[0])
    while column < row.shape[0]:
        heap[k] = column
        _pop_heap(heap, less)
        column = _first_admitted(row, column + 1, heap[0])
    return heap[:k]


def sorted_row(row: np.ndarray, k: int) -> list[int]:
    """The heap of unsorted_row sorted as TopN::Extract sorts it (libstdc++'s sort_heap:
    repeated pops), best first. The same as a stable descending sort unless the row holds a
    NaN, which the comparator treats as equal to every value."""
    less = _better(row)
    heap = unsorted_row(row, k)
    for last in range(k - 1, 0, -1):
        value = heap[last]
        heap[last] = heap[0]
        _adjust(heap, 0, last, value, less)
    return heap


def heap_top_k_indices(x: np.ndarray, k: int, in_order: bool) -> np.ndarray:
    """sorted_row (in_order) or unsorted_row of every row of x (last axis), shaped as x with k
    columns, int32."""
    n = x.shape[-1]
    rows = x.reshape(-1, n)
    out = np.empty((rows.shape[0], k), dtype=np.int32)
    row_indices = sorted_row if in_order else unsorted_row
    for r in range(rows.shape[0]):
        out[r] = row_indices(rows[r], k)
    return out.reshape((*x.shape[:-1], k))
