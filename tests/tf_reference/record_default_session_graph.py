"""Records TensorFlow 1.15's answers to the programs of default_session_graph_cases.py (which
graph is the default under sess.as_default(), `with sess:` and an InteractiveSession):
data/default_session_graph.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_default_session_graph.py
"""

from __future__ import annotations

from case_tools import record_tf115
from default_session_graph_cases import CASES

record_tf115("default_session_graph", CASES)
