"""import_graph_def creates ops in TF's order: the ready node listed first goes first.

Order recorded under TF 1.15 (tests/tf_reference/record_graph_import_order.py).
"""

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.graph_import_order_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_imported_ops_come_in_tf_order(name: str) -> None:
    assert CASES[name](tf)["names"] == reference.case("graph_import_order", name)["names"]
