"""Records TensorFlow's answers to the programs of graph_api_cases.py (tf.Module,
tf.variable_creator_scope, session tensor handles).

Run under TensorFlow 1.15 (the reference; Python 3.7: /tmp/tf115 on the project's machine,
`python3.7 -m venv V && V/bin/pip install tensorflow-cpu==1.15.0 "numpy<1.19"`), it writes
data/graph_api.json, which the tests compare with:

    V/bin/python tests/tf_reference/record_graph_api.py

Run by run.py under TensorFlow 2.x (tf.compat.v1) it writes data/graph_api_tf2.json instead,
for reference only.
"""

from __future__ import annotations

from graph_api_cases import PROGRAMS, run
from recorder import record_programs

record_programs("graph_api", PROGRAMS, run)
