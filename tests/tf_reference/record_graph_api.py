"""Records TensorFlow's answers to the programs of graph_api_cases.py (tf.Module,
tf.variable_creator_scope, session tensor handles) into data/graph_api.json, the file the
tests compare with, under TF 1.15 (`cd tests/tf_reference && /tmp/tf115/bin/python
record_graph_api.py`; how to run it elsewhere: recorder.reference_tf)."""

from __future__ import annotations

from graph_api_cases import PROGRAMS, run
from recorder import record_programs

record_programs("graph_api", PROGRAMS, run)
