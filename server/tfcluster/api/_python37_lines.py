"""The line number Python 3.7 gives a frame's current instruction, which TF 1.15's messages
("From prog.py:<line>: ...") name.

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
import types

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
