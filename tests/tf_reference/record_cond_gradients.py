"""Records TF 1.15's gradients through v1 tf.cond / tf.while_loop (cond_gradient_cases.py):
op counts after tf.gradients, seeded random values after it, gradient values, and the op types
and names of the gradient graph, into data/cond_gradients.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_cond_gradients.py
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import record
from cond_gradient_cases import CASES
from recorder import Recorder

assert real_tf.__version__.startswith("1."), "recorded under TF 1.15 only"
record(Recorder("cond_gradients"), CASES, real_tf.compat.v1)
