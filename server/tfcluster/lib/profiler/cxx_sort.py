"""The element order of C++'s std::sort (libstdc++'s introsort), which tfprof sorts its nodes
with: an unstable sort, so nodes that compare equal (two ops with the same FLOPs) come out in
its order, not in name order. Reproduced so that tf.profiler lists ties as TensorFlow does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
_THRESHOLD = 16  # libstdc++'s _S_threshold


def cxx_sort(items: list[T], less: Callable[[T, T], bool]) -> list[T]:
    a = list(items)
    n = len(a)
    if n > 1:
        _introsort_loop(a, 0, n, 2 * (n.bit_length() - 1), less)
        _final_insertion_sort(a, 0, n, less)
    return a


def _introsort_loop(a: list[Any], first: int, last: int, depth: int, less: Any) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_sort(a, first, last, less)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        _introsort_loop(a, cut, last, depth, less)
        last = cut


def _move_median_to_first(a: list[Any], result: int, x: int, y: int, z: int, less: Any) -> None:
    if less(a[x], a[y]):
        if less(a[y], a[z]):
            a[result], a[y] = a[y], a[result]
        elif less(a[x], a[z]):
            a[result], a[z] = a[z], a[result]
        else:
            a[result], a[x] = a[x], a[result]
    elif less(a[x], a[z]):
        a[result], a[x] = a[x], a[result]
    elif less(a[y], a[z]):
        a[result], a[z] = a[z], a[result]
    else:
        a[result], a[y] = a[y], a[result]


def _partition_pivot(a: list[Any], first: int, last: int, less: Any) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(a, first, first + 1, mid, last - 1, less)
    lo, hi = first + 1, last
    pivot = a[first]
    while True:
        while less(a[lo], pivot):
            lo += 1
        hi -= 1
        while less(pivot, a[hi]):
            hi -= 1
        if not lo < hi:
            return lo
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1


def _insertion_sort(a: list[Any], first: int, last: int, less: Any) -> None:
    for i in range(first + 1, last):
        val = a[i]
        if less(val, a[first]):
            a[first + 1 : i + 1] = a[first:i]
            a[first] = val
        else:
            _unguarded_linear_insert(a, i, less)


def _unguarded_linear_insert(a: list[Any], last: int, less: Any) -> None:
    val = a[last]
    nxt = last - 1
    while less(val, a[nxt]):
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = val


def _final_insertion_sort(a: list[Any], first: int, last: int, less: Any) -> None:
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(a, i, less)
    else:
        _insertion_sort(a, first, last, less)


def _heap_sort(a: list[Any], first: int, last: int, less: Any) -> None:
    """std::partial_sort over the whole range: make_heap, then pop_heap repeatedly."""
    n = last - first

    def sift(hole: int, length: int, value: Any) -> None:
        top = hole
        child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if less(a[first + child], a[first + child - 1]):
                child -= 1
            a[first + hole] = a[first + child]
            hole = child
        if (length & 1) == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            a[first + hole] = a[first + child - 1]
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and less(a[first + parent], value):
            a[first + hole] = a[first + parent]
            hole = parent
            parent = (hole - 1) // 2
        a[first + hole] = value

    if n < 2:
        return
    for parent in range((n - 2) // 2, -1, -1):
        sift(parent, n, a[first + parent])
    for end in range(n - 1, 0, -1):
        value = a[first + end]
        a[first + end] = a[first]
        sift(0, end, value)


__all__ = ["cxx_sort"]
