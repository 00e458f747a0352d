"""The line Python 3.7 gives a frame's current instruction (TF 1.15's "From prog.py:<line>"):
a call spread over lines is at the line where its last argument starts, within the statement
the call is in; a frame whose source cannot be read keeps its own line."""

from __future__ import annotations

import sys
from typing import Any

from tfcluster.framework.python37_lines import python37_line


def _line_of_caller(*args: Any, **kwargs: Any) -> int:
    return python37_line(sys._getframe(1))


def _here() -> int:
    return sys._getframe(1).f_lineno


def test_a_call_on_one_line_is_at_that_line() -> None:
    base = _here()
    assert _line_of_caller(1, 2) == base + 1


def test_a_call_over_lines_is_at_its_last_arguments_line() -> None:
    base = _here()
    got = _line_of_caller(
        1,
        key=2,
    )
    assert got == base + 3


def test_the_count_starts_at_the_statement_in_a_with_header() -> None:
    base = _here()
    with open(
        __file__,
        encoding="utf-8",
    ) as f:
        got = _line_of_caller(f,
                              3)  # fmt: skip
    assert got == base + 6


def test_a_nested_call_over_lines_moves_the_outer_call() -> None:
    base = _here()
    got = [_line_of_caller(max(1,
                               2), 3)]  # fmt: skip
    assert got == [base + 2]


def test_code_without_source_keeps_its_own_line() -> None:
    namespace: dict[str, Any] = {"f": _line_of_caller}
    exec(compile("x = f(1,\n  2)", "<string>", "exec"), namespace)
    assert namespace["x"] == 1
