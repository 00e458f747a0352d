"""Records TensorFlow's answers to the programs of embedding_cases.py (embedding lookups over
shards, sparse and safe lookups, nce/sampled softmax losses, candidate samplers).

Run under TensorFlow 1.15 (the reference tfcluster follows; Python 3.7, see README.md), it
writes data/embeddings.json:

    /tmp/tf115/bin/python tests/tf_reference/record_embeddings.py

Run by run.py under the project's TensorFlow 2.x (tf.compat.v1), it writes
data/embeddings_tf2.json; the test compares with the 1.15 file and, except where 2.x behaves
differently from 1.15 (listed in the test), with the 2.x file too. Cases in TF2_ONLY would
abort TF 1.15's process (CHECK failures) and are recorded with 2.x only.
"""

from __future__ import annotations

import traceback

import tensorflow as real_tf
from embedding_cases import CASES, TF2_ONLY
from recorder import Recorder

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "embeddings"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "embeddings_tf2"

rec = Recorder(area)
for name, fn in sorted(CASES.items()):
    if area == "embeddings" and name in TF2_ONLY:
        continue
    try:
        result = fn(tf)
    except Exception as e:
        traceback.print_exc()
        rec.add(name, skipped=f"{type(e).__name__}: {e}")
        continue
    rec.add(name, **result)
rec.save()
