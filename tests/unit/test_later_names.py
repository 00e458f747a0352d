"""Names TF 1.15 has that tfcluster gained late (Keras's CTC backend, ...) compute what TF 1.15
computes: each program of tests/tf_reference/later_names_cases.py runs here on tfcluster and is
compared with TF 1.15's recorded answers (record_later_names.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.later_names_cases import CASES


def _assert_same(got: Any, recorded: Any, where: str) -> None:
    if isinstance(recorded, dict):
        assert sorted(got) == sorted(recorded), where
        for k in recorded:
            _assert_same(got[k], recorded[k], f"{where}.{k}")
    elif isinstance(recorded, list) and recorded and isinstance(recorded[0], np.ndarray):
        assert len(got) == len(recorded), where
        for i, (g, r) in enumerate(zip(got, recorded)):
            _assert_same(g, r, f"{where}[{i}]")
    elif isinstance(recorded, np.ndarray):
        reference.assert_close(got, recorded, rtol=1e-5, atol=1e-5)
    else:
        assert got == recorded, where


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_computes_what_tf_computed(name: str) -> None:
    tf.reset_default_graph()
    tf.set_random_seed(1)
    _assert_same(CASES[name](tf), reference.case("later_names", name), name)
