"""Records TensorFlow's answers to the programs of train_extras_cases.py
(ExponentialMovingAverage, cosine learning-rate schedules, warm_start/VocabInfo).

Run under TensorFlow 1.15 (the reference tfcluster follows; Python 3.7), it first writes the
checkpoints and vocabularies the cases read (data/train_extras/), then data/train_extras.json:

    /tmp/tf115/bin/python tests/tf_reference/record_train_extras.py

Run by run.py under the project's TensorFlow 2.x (tf.compat.v1), it reads 1.15's files and
writes data/train_extras_tf2.json.
"""

from __future__ import annotations

import tensorflow as real_tf
from case_tools import record
from recorder import Recorder
from train_extras_cases import CASES, write_object_checkpoint, write_sources

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "train_extras"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "train_extras_tf2"

rec = Recorder(area)
if area == "train_extras":
    rec.add("ema_checkpoint_written", **write_sources(tf))
    rec.add("object_checkpoint_written", **write_object_checkpoint(tf))
record(rec, CASES, tf)
