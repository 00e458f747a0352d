"""Records TensorFlow 1.15's answers to the programs of cookbook_cases.py (reductions of the
TF1 cookbook's regression and classification programs): data/cookbook.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_cookbook.py
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import record
from cookbook_cases import CASES
from recorder import Recorder

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_cookbook.py records TensorFlow 1.15 (see its docstring)")
tf = real_tf.compat.v1

rec = Recorder("cookbook")
record(rec, CASES, tf)
