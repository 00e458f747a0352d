"""Session.run's errors for fetches that name nothing in the graph or cannot be fetched,
against TF 1.15's (tests/tf_reference/record_fetch_errors.py): the class and the whole
message, a KeyError's text quoted as TF shows it."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.fetch_error_cases import CASES

AREA = "fetch_errors"


@pytest.mark.parametrize("name", sorted(CASES))
def test_fetch_errors_read_as_tfs(name: str) -> None:
    assert CASES[name](tf) == reference.case(AREA, name)
