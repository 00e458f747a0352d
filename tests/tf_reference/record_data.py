"""Records how TensorFlow's tf.data reads the cases of data_cases.py: every element (in
order; the comparison of seeded shuffles is by multiset), output types/shapes/classes, the
error classes of bad input (and what the next read gives), and the names of a get_next.

Run under TensorFlow 1.15 (the reference tfcluster follows; Python 3.7, see README.md) it
writes data/data.json:

    V/bin/python tests/tf_reference/record_data.py

Run by run.py under the project's TensorFlow 2.x (tf.compat.v1) it writes
data/data_tf2.json; the test compares with the 1.15 file and, except where 2.x behaves
differently (listed in the test), with the 2.x file too.
"""

from __future__ import annotations

import tempfile

import data_cases as cases
import tensorflow as real_tf
from recorder import Recorder

if real_tf.__version__.startswith("1."):
    tf = real_tf.compat.v1
    area = "data"
else:
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    area = "data_tf2"

rec = Recorder(area)
files = cases.write_files(tempfile.mkdtemp(prefix="tf_data_cases_"))
for case in cases.CASES:
    out = cases.run_case(tf, case, files)
    rec.add(case.name, order=case.order, **cases.strip_dir(out, files))
for name, build, _ in cases.RUN_ERRORS:
    rec.add(f"error_{name}", **cases.run_error(tf, build, files))
for name, build in cases.BUILD_ERRORS:
    rec.add(f"build_error_{name}", error_class=cases.build_error(tf, build, files))

with tf.Graph().as_default():
    it = tf.data.Dataset.range(3).make_one_shot_iterator()
    x = it.get_next()
    y = it.get_next(name="second")
    init_it = tf.data.Dataset.range(3).make_initializable_iterator()
    rec.add(
        "names",
        get_next=x.name,
        named_get_next=y.name,
        one_shot_op=it._iterator_resource.op.type,
        initializable_op=init_it._iterator_resource.op.type,
        initializer_op=init_it.initializer.type,
        string_handle=it.string_handle().dtype.name,
    )
rec.save()
