"""tf.keras.utils.get_file when a fetch fails or the fetched file's hash differs: TF 1.15 raises
a plain Exception "URL fetch failure on ...", leaves no file behind (a stale cached one
included), and keeps a downloaded file without checking its hash again; a cached file whose
hash (file_hash, or md5_hash) differs is announced and fetched again, one whose hash matches
is used as it is. Cases in
tests/tf_reference/get_file_cases.py, recorded by record_get_file.py."""

from __future__ import annotations

import re
from typing import Any

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.get_file_cases import CASES


def _timing_free(stdout: str) -> str:
    # The progress bar ends with the time taken, which varies.
    return re.sub(r" - \d+s \d+us/step", " - <time>", stdout)


@pytest.mark.parametrize("case", sorted(CASES))
def test_get_file_fails_and_cleans_up_as_tf_does(case: str, tmp_path: Any) -> None:
    cache, served = tmp_path / "cache", tmp_path / "served"
    cache.mkdir()
    served.mkdir()
    got = CASES[case](tf.keras.utils.get_file, str(cache), str(served))
    want = dict(reference.case("get_file", case))
    assert _timing_free(got.pop("stdout", "")) == _timing_free(want.pop("stdout", ""))
    assert got == want
