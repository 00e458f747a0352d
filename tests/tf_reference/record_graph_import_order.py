"""Records the order TensorFlow's importer creates the ops of graph_import_order_cases.py.

Run under TensorFlow 1.15 (the reference tfcluster follows; needs Python 3.7:
`python3.7 -m venv V && V/bin/pip install tensorflow-cpu==1.15.0 "numpy<1.19"`), it writes
data/graph_import_order.json:

    V/bin/python tests/tf_reference/record_graph_import_order.py

Run by run.py under the project's TensorFlow 2.x (tf.compat.v1), it writes
data/graph_import_order_tf2.json (not committed: the test compares with the 1.15 file).
"""

from __future__ import annotations

from case_tools import record
from graph_import_order_cases import CASES
from recorder import Recorder, reference_tf

tf, area = reference_tf("graph_import_order")
record(Recorder(area), CASES, tf)
