"""Records TensorFlow's answers to the programs of graph_object_cases.py (Operation.get_attr
of every attr kind, node_def, op_def, traceback, consumers, lookup errors, GraphDef, reprs)
into data/graph_object.json, the file the tests compare with, under TF 1.15 (`cd
tests/tf_reference && /tmp/tf115/bin/python record_graph_object.py`; see
recorder.reference_tf)."""

from __future__ import annotations

from graph_object_cases import PROGRAMS, run
from recorder import record_programs

record_programs("graph_object", PROGRAMS, run)
