"""Records how TensorFlow's tf.data reads the cases of data_cases.py: every element (in
order; the comparison of seeded shuffles is by multiset), output types/shapes/classes, the
error classes of bad input (and what the next read gives), and the names of a get_next."""

from __future__ import annotations

import tempfile

import data_cases as cases
import tensorflow.compat.v1 as tf
from recorder import Recorder

tf.disable_v2_behavior()
rec = Recorder("data")
files = cases.write_files(tempfile.mkdtemp(prefix="tf_data_cases_"))
for case in cases.CASES:
    out = cases.run_case(tf, case, files)
    rec.add(case.name, order=case.order, **cases.strip_dir(out, files))
for name, build, _ in cases.RUN_ERRORS:
    rec.add(f"error_{name}", **cases.run_error(tf, build, files))
# Where TF 2.x's compat.v1 differs from TF 1.15 (which tfcluster follows), the case says so.
TF115 = {
    "flat_map_not_dataset": "TF 1.15 raises TypeError('`map_func` must return a `Dataset` "
    "object'); TF 2.x fails later with an AttributeError",
}
for name, build in cases.BUILD_ERRORS:
    note = {"tf115": TF115[name]} if name in TF115 else {}
    rec.add(f"build_error_{name}", error_class=cases.build_error(tf, build, files), **note)

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
