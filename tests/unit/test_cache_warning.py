"""An in-memory Dataset.cache() left before its first pass ends drops that pass with TF's
warning on stderr, at the moment TF logs it: when the take reading it ends, when its
iterator is initialized again, when the session closes; never for a pass that read nothing
or one read to its end (tests/tf_reference/cache_warning_cases.py, recorded by
record_cache_warning.py under TF 1.15)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from tf_reference import reference
from tf_reference.cache_warning_cases import CASES, run_case

_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_partial_memory_cache_is_dropped_with_tfs_warning(name: str) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(_ROOT / "server"), *filter(None, [env.get("PYTHONPATH")])]
    )
    want = reference.case("cache_warning", name)["lines"]
    assert run_case(sys.executable, "tfcluster", name, env=env) == want
