"""Records TensorFlow 1.15's answers to the programs of model_sweep_cases.py (behaviours of
public TF1 model code: partial-shape inference, tf.sort's ops, multinomial draws, softmax's
last bits): data/model_sweep.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_model_sweep.py
"""

from __future__ import annotations

from case_tools import record_tf115
from model_sweep_cases import CASES

record_tf115("model_sweep", CASES)
