"""Records TensorFlow's answers to the programs of conv_cases.py (convolutions, pooling,
space/batch rearrangements): outputs, gradients, op names and error classes.

Run under TensorFlow 1.15, the reference tfcluster follows (Python 3.7:
`python3.7 -m venv V && V/bin/pip install tensorflow-cpu==1.15.0 "numpy<1.19"`):

    V/bin/python tests/tf_reference/record_conv.py

It writes data/conv.json. Under run.py's TensorFlow 2.x it writes data/conv_tf2.json instead
(not used by the tests: 2.x's tf.compat.v1 builds some of these graphs differently).
"""

from __future__ import annotations

import traceback

import tensorflow as real_tf
from conv_cases import CASES
from recorder import Recorder

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "conv"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "conv_tf2"

rec = Recorder(area)
for name, fn in sorted(CASES.items()):
    try:
        result = fn(tf)
    except Exception as e:  # a case TF cannot run is recorded as skipped
        traceback.print_exc()
        rec.add(name, skipped=f"{type(e).__name__}: {e}")
        continue
    rec.add(name, **result)
rec.save()
