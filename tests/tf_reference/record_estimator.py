"""Records TensorFlow 1.15's answers to the programs of estimator_cases.py (canned
estimators warm-started from fixed values, feature columns) into data/estimator.json.

tf.estimator does not exist in the 2.x TensorFlow that run.py uses, so this recorder runs
under TensorFlow 1.15 only (Python 3.7: `python3.7 -m venv V && V/bin/pip install
tensorflow-cpu==1.15.0 "numpy<1.19"`):

    V/bin/python tests/tf_reference/record_estimator.py
"""

from __future__ import annotations

import shutil
import tempfile

import tensorflow as real_tf
from case_tools import add_in_model_dirs
from estimator_cases import CASES
from recorder import Recorder

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_estimator.py needs TensorFlow 1.15 (tf.estimator is gone in 2.16+)")
tf = real_tf.compat.v1
tf.logging.set_verbosity(tf.logging.ERROR)

rec = Recorder("estimator")
add_in_model_dirs(rec, CASES, sorted(CASES), tf)

# The checkpoint cases write TF's checkpoints into data/estimator_checkpoints/ as they run.
from estimator_cases import CHECKPOINT_CASES, checkpoint_case  # noqa: E402

for name in CHECKPOINT_CASES:
    tmp = tempfile.mkdtemp()
    try:
        with tf.Graph().as_default():
            rec.add(f"checkpoint_{name}", **checkpoint_case(tf, tmp, name, True))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
rec.save()
