"""Records TF 1.15's answers for the programs of dataset_form_ops_cases.py (the remaining
dataset raw ops) for tests/unit/test_dataset_form_ops.py. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_dataset_form_ops.py
"""

import tensorflow as tf
from dataset_form_ops_cases import CASES
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_dataset_form_ops.py records TensorFlow 1.15")

rec = Recorder("dataset_form_ops")
for name, program in sorted(CASES.items()):
    with tf.Graph().as_default():
        rec.add(name, **program(tf))
rec.save()
