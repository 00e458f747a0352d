"""Records the ops TF 1.15's tf.gradients builds for broadcasting binary ops and reductions
(gradient_graph_cases.py): op types, names and inputs, the gradients' names, the op count and
values, into data/gradient_graphs.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_gradient_graphs.py
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import record
from gradient_graph_cases import CASES
from recorder import Recorder

assert real_tf.__version__.startswith("1."), "recorded under TF 1.15 only"
record(Recorder("gradient_graphs"), CASES, real_tf.compat.v1)
