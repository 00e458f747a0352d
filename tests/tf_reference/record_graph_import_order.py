"""Records the order TensorFlow's importer creates the ops of graph_import_order_cases.py
into data/graph_import_order.json under TF 1.15, the reference tfcluster follows (see
recorder.reference_tf; 2.x's file is not committed)."""

from __future__ import annotations

from case_tools import record
from graph_import_order_cases import CASES
from recorder import Recorder, reference_tf

tf, area = reference_tf("graph_import_order")
record(Recorder(area), CASES, tf)
