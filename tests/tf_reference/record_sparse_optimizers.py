"""Records TensorFlow's answers to the programs of sparse_optimizer_cases.py.

Run under TensorFlow 1.15 (the reference tfcluster follows; Python 3.7, see README.md), it
writes data/sparse_optimizers.json:

    V/bin/python tests/tf_reference/record_sparse_optimizers.py

Run by run.py under the project's TensorFlow 2.x (tf.compat.v1), it writes
data/sparse_optimizers_tf2.json; the test compares with the 1.15 file and, except for the
cases where 2.x behaves differently from 1.15 (listed in the test), with the 2.x file too.
"""

from __future__ import annotations

import traceback

import tensorflow as real_tf
from recorder import Recorder
from sparse_optimizer_cases import CASES

try:  # TF 2.x keeps the generated update ops in ops/, TF 1.15 in training/
    from tensorflow.python.ops import gen_training_ops as raw
except ImportError:
    from tensorflow.python.training import gen_training_ops as raw

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "sparse_optimizers"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "sparse_optimizers_tf2"

rec = Recorder(area)
for name, fn in sorted(CASES.items()):
    try:
        result = fn(tf, raw)
    except Exception as e:
        traceback.print_exc()
        rec.add(name, skipped=f"{type(e).__name__}: {e}")
        continue
    rec.add(name, **result)
rec.save()
