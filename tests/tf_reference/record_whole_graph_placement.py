"""Records TF 1.15 on whole_graph_placement_cases.py (a session places its whole graph, and
soft placement never changes a node's task). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_whole_graph_placement.py
"""

import json
import os

import tensorflow as tf
from whole_graph_placement_cases import run_all

if not tf.__version__.startswith("1."):
    raise SystemExit("record_whole_graph_placement.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "data", "whole_graph_placement.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": run_all(tf)}, f, indent=1, sort_keys=True)
    f.write("\n")
