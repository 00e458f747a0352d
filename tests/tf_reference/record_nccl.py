"""Records TF 1.15's NCCL graphs and values for nccl_cases.py (tests/unit/test_nccl_ops.py).
Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_nccl.py
"""

import tensorflow as tf
from nccl_cases import build, expected_values, gradient_errors
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_nccl.py records TensorFlow 1.15")

rec = Recorder("nccl")
with tf.Graph().as_default():
    built = build(tf, lambda i: f"/gpu:{i}")
    rec.add("graph", ops=built["graph"], grads=[g.name for g in built["grads"]])
with tf.Graph().as_default():
    rec.add("values", **expected_values(tf))
rec.add("errors", **gradient_errors(tf))
rec.save()
