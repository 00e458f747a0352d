"""Records TensorFlow 1.15's answers to keras_graph_detail_cases.py: data/keras_graph_details.json.

cd tests/tf_reference && /tmp/tf115/bin/python record_keras_graph_details.py
"""

from __future__ import annotations

from case_tools import record_tf115
from keras_graph_detail_cases import CASES

record_tf115("keras_graph_details", CASES)
