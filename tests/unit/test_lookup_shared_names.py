"""Lookup tables share their resource by TF 1.15's names (tests/tf_reference/
record_lookup_shared_names.py): a fresh "hash_table_<uuid4>" for a table filled from tensors,
the file's name for one filled from a text file, so a second session on the same server reads
the table the first filled (a session in the process of its own does not)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.lookup_shared_name_cases import CASES

AREA = "lookup_shared_names"


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_lookup_tables_shared_name_is_tfs(name: str) -> None:
    same(CASES[name](tf.compat.v1), reference.case(AREA, name), name)
