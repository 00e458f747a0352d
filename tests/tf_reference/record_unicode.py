"""Records TensorFlow's values for cases_unicode.py (tf.strings Unicode ops, ngrams,
base64, JSON Examples).

Run under TensorFlow 1.15 (Python 3.7), the reference these ops follow, it writes
data/unicode.json:

    /tmp/tf115/bin/python tests/tf_reference/record_unicode.py

Under run.py's TensorFlow 2.x it writes data/unicode_tf2.json (not compared by the tests:
2.x changed some error classes)."""

from __future__ import annotations

import cases_unicode
import tensorflow as real_tf
from casebook import run_case
from recorder import Recorder

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "unicode"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "unicode_tf2"

rec = Recorder(area)
for name, case in cases_unicode.BOOK.cases.items():
    rec.add(name, **run_case(tf, case))
rec.save()
