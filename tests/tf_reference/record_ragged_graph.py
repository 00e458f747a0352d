"""Records TF 1.15's RaggedTensors in a graph for cases_ragged_graph.py: each result's printed
form (names, static shapes, dtypes), its value from a session, and error classes.

    cd tests/tf_reference && /tmp/tf115/bin/python record_ragged_graph.py

writes data/ragged_graph.json (under run.py's TF 2.x, data/ragged_graph_tf2.json, which the
tests do not read)."""

from __future__ import annotations

import cases_ragged_graph
from recorder import Recorder, reference_tf

tf, area = reference_tf("ragged_graph")
rec = Recorder(area)
for name, build in cases_ragged_graph.CASES.items():
    rec.add(name, **cases_ragged_graph.run_case(tf, build))
rec.save()
