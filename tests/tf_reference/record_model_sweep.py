"""Records TensorFlow 1.15's answers to the programs of model_sweep_cases.py (behaviours of
public TF1 model code: partial-shape inference, tf.sort's ops, multinomial draws, softmax's
last bits): data/model_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_model_sweep.py
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import record
from model_sweep_cases import CASES
from recorder import Recorder

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_model_sweep.py records TensorFlow 1.15 (see its docstring)")
tf = real_tf.compat.v1

rec = Recorder("model_sweep")
record(rec, CASES, tf)
