"""The suite is collected in one pytest run with rootdir-relative imports: two test files
with one basename would stop collection ("import file mismatch"), so every basename is unique."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_every_test_file_basename_is_unique_across_the_suite() -> None:
    names = Counter(path.name for path in TESTS.rglob("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []
