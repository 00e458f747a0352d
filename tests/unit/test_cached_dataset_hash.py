"""A tf.keras.datasets loader whose file is already cached with another hash than the real
dataset's says so, tries to fetch it again and, offline, fails with TF 1.15's plain Exception,
leaving nothing cached (cases in tests/tf_reference/cached_dataset_cases.py, recorded by
record_cached_dataset_hash.py)."""

from __future__ import annotations

import urllib.request
from typing import Any

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.cached_dataset_cases import CASES, offline_urlretrieve, run


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_cached_file_with_another_hash_is_fetched_again(
    case: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(urllib.request, "urlretrieve", offline_urlretrieve)
    got = run(case, tf.keras.datasets, str(tmp_path))
    assert got == reference.case("cached_dataset_hash", case)
