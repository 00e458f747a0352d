"""Seeded gamma and poisson draws are TF 1.15's numbers, bit for bit, against its recorded
answers (tests/tf_reference/record_gamma_poisson_streams.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.gamma_poisson_stream_cases import CASES

AREA = "gamma_poisson_streams"


@pytest.mark.parametrize("name", sorted(CASES))
def test_seeded_draws_are_tfs(name: str) -> None:
    reference.assert_case_equal(AREA, name, CASES[name](tf))
