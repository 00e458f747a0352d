"""Glob patterns over local files as TensorFlow's MatchingFiles reads them."""

from __future__ import annotations

import glob
import os


def match(pattern: str) -> list[str]:
    """The paths a glob pattern matches, sorted (hidden files too, as TF's matcher)."""
    if not glob.has_magic(pattern):
        return [pattern] if os.path.exists(pattern) else []
    return sorted(glob.glob(pattern, include_hidden=True))
