"""Queue-based input on TensorFlow: writes the small text and binary files the cases read
(data/queues/; the TFRecord files are TensorFlow's own, in data/records/ from
record_records.py), runs every case of queues_cases.py and records what it returns.

TF 2.x's compat.v1 places FIFOQueues on "/device:CPU:*" and builds tf.Assert of non-string
data under a cond; neither shows in what the cases compare."""

from __future__ import annotations

import gzip
import os

import queues_cases as cases
import tensorflow.compat.v1 as tf
from recorder import Recorder

tf.disable_v2_behavior()
tf.logging.set_verbosity(tf.logging.ERROR)

os.makedirs(cases.QUEUES_DIR, exist_ok=True)
for name, data in cases.TEXT_FILES.items():
    with open(cases.q_path(name), "wb") as f:
        f.write(data)
with open(cases.q_path(cases.BIN_FILE), "wb") as f:
    f.write(cases.BIN_BYTES)
with gzip.GzipFile(cases.q_path(cases.GZ_BIN_FILE), "wb", mtime=0) as f:
    f.write(cases.BIN_BYTES)

rec = Recorder("queues")
for name, fn in cases.CASES.items():
    print(f"[queues] {name}", flush=True)
    rec.add(name, **fn(tf))
rec.save()
