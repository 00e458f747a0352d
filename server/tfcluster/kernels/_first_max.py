"""Each window's first maximum, found by a max pool whose windows tile its input and kept for
the MaxPoolGrad of the same pool in the same step (kernel_fusion marks such pools).

The gradient otherwise finds them again: a tap-major copy of the whole input, its comparison
with the pooled maximum, and the first-maximum choice (for the conv net's 2x2 pools over
two thirds of MaxPoolGrad's time). The forward finds them on the way, each tap compared
with the running maximum before the maximum takes it in: a tap is the window's first
maximum when it is above every tap before it and no tap after it is above it. That is
`x == max` at its first place, ties included; where the maximum is NaN no tap equals it,
so NaN windows get no position (as the gradient's comparison gives none).

An entry is found by the pooled output itself (held weakly: it goes, with its buffer, when
the array does), for the same input array and window; the gradient takes it out. A step's
own values are never written in place; a read-only input may be a variable's array, which
sparse updates write in place, so its positions count only while no variable has been
written in place since (in_place.write_epoch), as _winograd.KEPT's input tiles.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from tfcluster.kernels._kept_buffers import KeptBuffers, KeptEntry
from tfcluster.kernels._window import SCRATCH


class _Entry(KeptEntry):
    def __init__(self, x: Any, key: tuple[Any, ...], lent: tuple[Any, Any]) -> None:
        # lent: (SCRATCH key, bool [taps, N, *outs, C]): tap t's slab is True at the windows
        # whose first maximum it holds.
        super().__init__(x, key, lent)
        self.x = weakref.ref(x)
        self.y: Any = None


class KeptFirstMax(KeptBuffers[_Entry]):
    def start(self, xp: Any, x: Any, key: tuple[Any, ...], shape: tuple[int, ...]) -> _Entry:
        """An entry for the pool of x to fill (its buffer lent from SCRATCH)."""
        return _Entry(x, key, SCRATCH.take(xp, shape, bool))

    def register(self, y: Any, entry: _Entry) -> None:
        """The filled entry, found by the pool's output y from now on."""
        entry.y = self.watch(y, entry)
        self.put(y, entry)

    def take(self, x: Any, y: Any, key: tuple[Any, ...]) -> _Entry | None:
        """The positions the pool of x that gave y kept, taken out (the caller gives the
        entry back), or None."""
        entry = self.pop(y)
        if entry is None:
            return None
        if entry.y() is y and entry.x() is x and entry.key == key and entry.fresh(x):
            return entry
        self.give_back(entry)
        return None


KEPT = KeptFirstMax()


def pool_block(xp: Any, taps: list[Any], dest: Any, first: Any) -> None:
    """dest = the maximum of the tap views `taps` (the pool's own sums: the first tap copied,
    then np.maximum with each next one, in order), and first [len(taps), *dest.shape] each
    tap's first-maximum positions."""
    above = first  # tap t >= 1: above the running maximum of the taps before it
    for t, view in enumerate(taps):
        if t == 0:
            xp.copyto(dest, view)
        else:
            xp.greater(view, dest, out=above[t])
            xp.maximum(dest, view, out=dest)
    # The first maximum is the last tap above all those before it (tap 0 if none is).
    count = len(taps)
    if count > 1:
        later = above[count - 1].copy()
        for t in range(count - 2, 0, -1):
            xp.greater(above[t], later, out=first[t])  # above, and no later tap above it
            xp.logical_or(later, first[t], out=later)
        xp.logical_not(later, out=first[0])
    else:
        first[0] = True
    # A NaN maximum equals no tap: no position.
    nan = xp.not_equal(dest, dest)
    if xp is not np or nan.any():
        xp.logical_and(first, xp.logical_not(nan), out=first)
