"""Records TensorFlow 1.15's answers to tpu_estimator_cases.py (tf.estimator.tpu on the CPU
path: TPUEstimator(use_tpu=False)) into data/tpu_estimator.json. Runs under TF 1.15 only:

    V/bin/python tests/tf_reference/record_tpu_estimator.py
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import add_in_model_dirs
from recorder import Recorder
from tpu_estimator_cases import CASES

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_tpu_estimator.py needs TensorFlow 1.15")
tf = real_tf.compat.v1
tf.logging.set_verbosity(tf.logging.ERROR)

rec = Recorder("tpu_estimator")
add_in_model_dirs(rec, CASES, sorted(CASES), tf)
print(rec.save())
