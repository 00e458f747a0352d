"""Records TensorFlow 1.15's answers to the programs of distribute_cases.py (tf.distribute
strategies in graph mode: contexts, mirrored variables, reductions, training losses, input,
cross-device ops, errors).

Run under TensorFlow 1.15 (Python 3.7: /tmp/tf115 on the project's machine):

    cd tests/tf_reference && /tmp/tf115/bin/python record_distribute.py

It writes data/distribute.json, which test_tf_reference_distribute.py compares with.
"""

from __future__ import annotations

import tensorflow as real_tf
from distribute_cases import PROGRAMS, run
from recorder import Recorder

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_distribute.py records TensorFlow 1.15 (tf.distribute v1 strategies)")
tf = real_tf.compat.v1
rec = Recorder("distribute")
for name in PROGRAMS:
    rec.add(name, **run(tf, name))
rec.save()
