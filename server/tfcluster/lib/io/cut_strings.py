"""String columns a parser cut from a batch of records at one offset, remembered with their
bytes as the rows of one uint8 array: DecodeRaw of such a column copies those rows at once
instead of joining its strings again (parse_example of fixed-size images, then decode_raw).

A column is known by its id while it lives (a weak reference checks it is the same array;
the entry goes when the array does). Only the parser that made a column registers it, and
nothing writes into an object array of strings, so the rows always hold its strings' bytes.
"""

from __future__ import annotations

import weakref

import numpy as np

_ROWS: dict[int, tuple[weakref.ref[np.ndarray], np.ndarray]] = {}


def remember(column: np.ndarray, rows: np.ndarray) -> None:
    """Records that column[i] is rows[i].tobytes() for every i (rows: [len(column), k])."""
    key = id(column)

    def forget(ref: weakref.ref[np.ndarray], key: int = key) -> None:
        # (The array's memory, and so its id, is not reused before this has run.)
        entry = _ROWS.get(key)
        if entry is not None and entry[0] is ref:
            del _ROWS[key]

    _ROWS[key] = (weakref.ref(column, forget), rows)


def rows_of(column: object) -> np.ndarray | None:
    """The [n, k] uint8 rows holding a remembered column's strings, or None."""
    entry = _ROWS.get(id(column))
    if entry is None or entry[0]() is not column:
        return None
    return entry[1]
