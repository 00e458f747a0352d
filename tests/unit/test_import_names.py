"""import_graph_def uniquifies the names a graph already holds as TF 1.15's importer does
(tests/tf_reference/import_name_cases.py, recorded by record_import_names.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.import_name_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_import_uniquifies_names_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case("import_names", name), name)
