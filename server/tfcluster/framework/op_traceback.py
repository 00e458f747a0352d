"""Operation.traceback: the Python stack at an op's creation, as TF 1.15's tuple of
(filename, lineno, function name, source line) from the outermost frame in.

Making an op keeps only (code object, line number) pairs in one flat tuple; file names and
source lines are looked up when a program reads the traceback."""

from __future__ import annotations

import linecache
import sys
from types import FrameType


def capture(skip: int = 1) -> tuple[object, ...]:
    """Code objects and line numbers of the caller's stack, innermost first, `skip` frames
    above this function."""
    frame: FrameType | None = sys._getframe(skip)
    out: list[object] = []
    while frame is not None:
        out.append(frame.f_code)
        out.append(frame.f_lineno)
        frame = frame.f_back
    return tuple(out)


def convert(captured: tuple[object, ...]) -> tuple[tuple[str, int, str, str | None], ...]:
    frames = []
    for i in range(len(captured) - 2, -1, -2):
        code = captured[i]
        lineno = captured[i + 1]
        assert isinstance(lineno, int)
        filename: str = code.co_filename  # type: ignore[attr-defined]
        linecache.checkcache(filename)
        line = linecache.getline(filename, lineno).strip() or None
        frames.append((filename, lineno, code.co_name, line))  # type: ignore[attr-defined]
    return tuple(frames)
