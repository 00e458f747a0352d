"""Records TensorFlow's values for cases_ragged.py (tf.RaggedTensor, tf.ragged, ragged
dispatch of math ops, the ragged tf.strings ops), with static shapes, dtypes and names
(cases_ragged.STATIC) and what a session gives for a fetched or fed RaggedTensor.

Run under TensorFlow 1.15 (Python 3.7), the reference tfcluster follows, it writes
data/ragged.json:

    cd tests/tf_reference && /tmp/tf115/bin/python record_ragged.py

Under run.py's TensorFlow 2.x it writes data/ragged_tf2.json (not compared by the tests:
2.x's compat.v1 builds several ragged ops differently, e.g. to_tensor is one
RaggedTensorToTensor op there)."""

from __future__ import annotations

import dataclasses

import cases_ragged
import tensorflow as real_tf
from casebook import run_case
from recorder import Recorder

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "ragged"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "ragged_tf2"

rec = Recorder(area)
for name, case in cases_ragged.BOOK.cases.items():
    # TF's names are stored for every case; the test compares them where case.names is set.
    rec.add(name, **run_case(tf, dataclasses.replace(case, names=True)))
for name, build in cases_ragged.STATIC.items():
    rec.add("static:" + name, **cases_ragged.describe(tf, build))
rec.add("session:fetch_and_feed", **cases_ragged.fetch_and_feed(tf))
rec.add("constant_value", **cases_ragged.constant_values(tf))
rec.add("spec", **cases_ragged.spec_facts(tf))
rec.save()
