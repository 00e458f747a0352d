"""Records how TensorFlow reads the cases of data_extras_cases.py (tf.data.experimental's
group_by_window, bucket_by_sequence_length, group_by_reducer, dense_to_sparse_batch,
Optional / get_next_as_optional, TFRecordWriter, rejection_resample): elements in order,
output types / shapes / classes, error classes of bad input and what the next read gives.

Run under TensorFlow 1.15 (Python 3.7) it writes data/data_extras.json:

    /tmp/tf115/bin/python tests/tf_reference/record_data_extras.py

Under run.py's TensorFlow 2.x it writes data/data_extras_tf2.json (not compared)."""

from __future__ import annotations

import tempfile

import data_cases
import data_extras_cases as cases
import tensorflow as real_tf
from recorder import Recorder

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "data_extras"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "data_extras_tf2"

rec = Recorder(area)
files = {"dir": tempfile.mkdtemp(prefix="tf_data_extras_")}
for case in cases.CASES:
    rec.add(case.name, order=case.order, **data_cases.run_case(tf, case, files))
for name, build in [*cases.STEP_CASES, *cases.WRITE_CASES]:
    rec.add(name, **cases.run_steps(tf, build, files))
for name, build, _ in cases.RUN_ERRORS:
    rec.add(f"error_{name}", **data_cases.run_error(tf, build, files))
for name, build in cases.BUILD_ERRORS:
    rec.add(f"build_error_{name}", error_class=data_cases.build_error(tf, build, files))
for name, initial in cases.RESAMPLE_CASES:
    rec.add(f"rejection_resample_{name}", **cases.run_resample(tf, initial))
rec.save()
