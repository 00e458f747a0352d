"""Records TensorFlow 1.15's datasets applied at iterator creation
(dataset_options_graph_cases.py):
data/dataset_options_graph.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_dataset_options_graph.py
"""

from __future__ import annotations

from case_tools import record_tf115
from dataset_options_graph_cases import CASES

record_tf115("dataset_options_graph", CASES)
