"""Scratch buffers a forward kernel fills for the backward kernel of the same step, found by an
array (held weakly: an entry goes, its buffer back to SCRATCH, with the array): Winograd's
input tiles (_winograd.KEPT) and a max pool's first maxima (_first_max.KEPT).

A step's own values are never written in place, so the same array holds the same numbers; a
read-only array may be a variable's, which sparse updates write in place: an entry for one
counts only while no variable has been written in place since (in_place.write_epoch)."""

from __future__ import annotations

import threading
import weakref
from typing import Any, Generic, TypeVar

from tfcluster.kernels import in_place
from tfcluster.kernels._window import SCRATCH


class KeptEntry:
    """One forward call's buffer (lent from SCRATCH), kept for the input x."""

    def __init__(self, x: Any, key: tuple[Any, ...], lent: tuple[Any, Any]) -> None:
        self.key = key
        self.frozen = not getattr(x, "flags", None) or not x.flags.writeable
        self.epoch = in_place.write_epoch()
        self.lent = lent

    def fresh(self, x: Any) -> bool:
        """Whether the kept values still stand for x's (see the module's note)."""
        frozen = self.frozen or not x.flags.writeable
        return not frozen or self.epoch == in_place.write_epoch()


E = TypeVar("E", bound=KeptEntry)


class KeptBuffers(Generic[E]):
    """Entries by the id of the array that finds them; the backward takes one out and gives
    its buffer back."""

    def __init__(self) -> None:
        self._entries: dict[int, E] = {}
        self._lock = threading.Lock()

    def watch(self, finder: Any, entry: E) -> weakref.ref[Any]:
        """A weak reference to the array that finds `entry`, dropping it when the array goes."""

        def gone(_: Any) -> None:
            self._drop(entry)

        return weakref.ref(finder, gone)

    def put(self, finder: Any, entry: E) -> None:
        with self._lock:
            old = self._entries.get(id(finder))
            self._entries[id(finder)] = entry
        if old is not None:
            SCRATCH.give(*old.lent)

    def pop(self, finder: Any) -> E | None:
        with self._lock:
            return self._entries.pop(id(finder), None)

    def give_back(self, entry: E) -> None:
        """The buffer of an entry taken out, or of one never put (its forward failed)."""
        SCRATCH.give(*entry.lent)

    discard = give_back

    def _drop(self, entry: E) -> None:
        with self._lock:
            for k, e in list(self._entries.items()):
                if e is entry:
                    del self._entries[k]
                    break
            else:
                return
        SCRATCH.give(*entry.lent)

    def __len__(self) -> int:
        return len(self._entries)
