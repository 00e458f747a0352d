"""A MetaGraphDef's account of its ops against TF 1.15's recorded answers
(tests/tf_reference/record_meta_graph_op_list.py): the stripped_op_list of a training graph
and of a while loop (TF's OpDefs, flags such as is_commutative included, sorted by name),
export with strip_default_attrs, a stripped graph imported and run, a newer producer's attr
at its default dropped on import, and long attr lists shortened in messages."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.meta_graph_op_list_cases import CASES

AREA = "meta_graph_op_list"


@pytest.mark.parametrize("name", sorted(CASES))
def test_meta_graph_op_list_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)
