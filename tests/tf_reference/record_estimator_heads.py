"""Records TensorFlow 1.15's answers to the programs of estimator_heads_cases.py (the public
heads, Baseline*/*Estimator, add_metrics, parse-spec helpers, exporters) into
data/estimator_heads.json.

tf.estimator does not exist in the 2.x TensorFlow that run.py uses, so this recorder runs
under TensorFlow 1.15 only (Python 3.7, with tensorflow_estimator 1.15):

    V/bin/python tests/tf_reference/record_estimator_heads.py [case ...]
"""

from __future__ import annotations

import sys

import tensorflow as real_tf
from case_tools import add_in_model_dirs
from estimator_heads_cases import CASES
from recorder import Recorder

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_estimator_heads.py needs TensorFlow 1.15")
tf = real_tf.compat.v1
tf.logging.set_verbosity(tf.logging.ERROR)

rec = Recorder("estimator_heads")
add_in_model_dirs(rec, CASES, sys.argv[1:] or sorted(CASES), tf)
rec.save()
