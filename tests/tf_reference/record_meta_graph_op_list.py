"""Records TensorFlow 1.15's answers to the programs of meta_graph_op_list_cases.py (a
MetaGraphDef's stripped_op_list, strip_default_attrs, a newer producer's attrs on import):
data/meta_graph_op_list.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_meta_graph_op_list.py
"""

from __future__ import annotations

from case_tools import record_tf115
from meta_graph_op_list_cases import CASES

record_tf115("meta_graph_op_list", CASES)
