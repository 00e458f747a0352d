"""The value of a dead tensor: the output of a Switch on the branch it did not take, and
everything computed from it (TF's executor marks such outputs `is_dead`). Only the frame
executor (runtime/frame_executor.py) ever holds one; it never reaches a fetch or a kernel
other than Merge's."""

from __future__ import annotations

from typing import Final


class _Dead:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<dead tensor>"

    def __reduce__(self) -> str:
        return "DEAD"


DEAD: Final = _Dead()

__all__ = ["DEAD"]
