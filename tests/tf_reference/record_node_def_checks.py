"""Records TensorFlow 1.15's answers to the imports of node_def_check_cases.py (GraphDefs whose
nodes do not fit their ops): data/node_def_checks.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_node_def_checks.py
"""

from __future__ import annotations

from case_tools import record_tf115
from node_def_check_cases import CASES

record_tf115("node_def_checks", CASES)
