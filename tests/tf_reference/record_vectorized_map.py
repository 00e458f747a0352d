"""Records TF 1.15's tf.vectorized_map values for vectorized_map_cases.py. Run under TF 1.15:

cd tests/tf_reference && /tmp/tf115/bin/python record_vectorized_map.py
"""

from __future__ import annotations

import tensorflow as tf
from recorder import Recorder
from vectorized_map_cases import CASES, build

if not tf.__version__.startswith("1."):
    raise SystemExit("record_vectorized_map.py records TensorFlow 1.15")

rec = Recorder("vectorized_map")
for case in CASES:
    with tf.Graph().as_default(), tf.Session() as sess:
        rec.add(case, value=sess.run(build(tf, case)))
rec.save()
