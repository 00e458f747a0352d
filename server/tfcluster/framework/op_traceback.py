"""Operation.traceback: the Python stack at an op's creation, as TF 1.15's tuple of
(filename, lineno, function name, source line) from the outermost frame in;
Operation.traceback_with_start_lines adds each function's first line (its code object's
co_firstlineno, as TF's StackFrame.func_start_lineno).

Making an op keeps only (code object, line number) pairs in one flat tuple; file names and
source lines are looked up when a program reads the traceback."""

from __future__ import annotations

import linecache
import sys
from collections.abc import Iterator
from types import CodeType, FrameType

Frame = tuple[str, int, str, str | None]
FrameWithStartLine = tuple[str, int, str, str | None, int]


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


def convert(captured: tuple[object, ...]) -> tuple[Frame, ...]:
    return tuple(_frame(code, lineno) for code, lineno in _outermost_first(captured))


def convert_with_start_lines(captured: tuple[object, ...]) -> tuple[FrameWithStartLine, ...]:
    return tuple(
        (*_frame(code, lineno), code.co_firstlineno) for code, lineno in _outermost_first(captured)
    )


def _outermost_first(captured: tuple[object, ...]) -> Iterator[tuple[CodeType, int]]:
    for i in range(len(captured) - 2, -1, -2):
        code, lineno = captured[i], captured[i + 1]
        assert isinstance(code, CodeType) and isinstance(lineno, int)
        yield code, lineno


def _frame(code: CodeType, lineno: int) -> Frame:
    filename = code.co_filename
    linecache.checkcache(filename)
    line = linecache.getline(filename, lineno).strip() or None
    return (filename, lineno, code.co_name, line)
