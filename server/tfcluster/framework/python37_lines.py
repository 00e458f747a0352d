"""Where Python 3.7 says a frame is, which TF 1.15's messages name ("From prog.py:<line>: ...",
a warning's "prog.py:<line>: UserWarning"): the script's file name as the command line gave
it, and the line number of the frame's current instruction.

Python 3.7 numbers the instructions of a statement by the latest line any of its expressions
compiled so far started on: a call spread over several lines is at the line of its last
argument (`f(a,\\n  b=c)` calls on the second line). Python 3.11 gives a call the line where
the call starts. The 3.7 number is the largest starting line among the instructions of the
frame's innermost statement, from the statement's start up to the current instruction.
"""

from __future__ import annotations

import ast
import functools
import linecache
import os
import sys
import types
import warnings

from tfcluster.framework.converted_code import is_converted_code

Span = tuple[int, int, int, int]  # first line, first column, last line, end column


def _span(node: ast.stmt) -> Span | None:
    if node.end_lineno is None or node.end_col_offset is None:
        return None
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


@functools.lru_cache(maxsize=64)
def _statements(filename: str, source: str) -> tuple[Span, ...]:
    """The spans of every statement of the file (source is its text, the cache's key)."""
    try:
        tree = ast.parse(source, filename)
    except (SyntaxError, ValueError):
        return ()
    spans = (_span(n) for n in ast.walk(tree) if isinstance(n, ast.stmt))
    return tuple(s for s in spans if s is not None)


def _contains(span: Span, line: int, col: int) -> bool:
    first, first_col, last, end_col = span
    if line < first or line > last:
        return False
    if line == first and col < first_col:
        return False
    return not (line == last and col >= end_col)


def _innermost(spans: tuple[Span, ...], line: int, col: int) -> Span | None:
    best: Span | None = None
    for span in spans:
        if _contains(span, line, col) and (best is None or _contains(best, span[0], span[1])):
            best = span
    return best


def python37_line(frame: types.FrameType) -> int:
    """frame's line as Python 3.7 reports it (frame.f_lineno where it cannot be worked out);
    in code AutoGraph converted, the line where the call starts, as TF's source map names it."""
    code = frame.f_code
    if is_converted_code(code):
        return frame.f_lineno
    positions = list(code.co_positions())
    index = frame.f_lasti // 2
    if not 0 <= index < len(positions):
        return frame.f_lineno
    line, _, col, _ = positions[index]
    source = "".join(linecache.getlines(code.co_filename, frame.f_globals))
    if line is None or col is None or not source:
        return frame.f_lineno
    statement = _innermost(_statements(code.co_filename, source), line, col)
    if statement is None:
        return frame.f_lineno
    latest = statement[0]
    for first, _, start_col, _ in reversed(positions[: index + 1]):
        if first is None or start_col is None:
            continue
        if not _contains(statement, first, start_col):
            break
        latest = max(latest, first)
    return latest


def as_given(filename: str) -> str:
    """The program's own script as its command line named it (Python 3.9 and later make the
    main script's file name absolute; TF 1.15's Python printed it as given)."""
    given = sys.argv[0] if sys.argv else ""
    if given and not os.path.isabs(given) and os.path.abspath(given) == filename:
        return given
    return filename


def warn_from_program(message: str, category: type[Warning] = UserWarning) -> None:
    """warnings.warn naming the program's line that called into tfcluster (the first frame
    outside the package), with the file name and line Python 3.7 gives it."""
    frame = sys._getframe(1)
    while frame.f_back is not None and in_package(frame.f_code.co_filename):
        frame = frame.f_back
    registry = frame.f_globals.setdefault("__warningregistry__", {})
    warnings.warn_explicit(
        message,
        category,
        as_given(frame.f_code.co_filename),
        python37_line(frame),
        module=frame.f_globals.get("__name__"),
        registry=registry,
        module_globals=frame.f_globals,
    )


# tfcluster's own source files: frames there are not the program's.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def in_package(filename: str) -> bool:
    """Whether a frame's file is one of tfcluster's own (not the program's)."""
    return filename.startswith(_PACKAGE_DIR) or os.path.abspath(filename).startswith(_PACKAGE_DIR)
