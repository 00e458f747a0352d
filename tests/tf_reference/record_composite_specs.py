"""Records TF 1.15's tf.IndexedSlicesSpec / tf.TensorArraySpec behaviour
(composite_spec_cases.py). Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_composite_specs.py
"""

from __future__ import annotations

import tensorflow as tf
from composite_spec_cases import indexed_slices_specs, tensor_array_specs
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_composite_specs.py records TensorFlow 1.15")

rec = Recorder("composite_specs")
rec.add("indexed_slices_specs", **indexed_slices_specs(tf))
rec.add("tensor_array_specs", **tensor_array_specs(tf))

# tf.ConditionalAccumulatorBase around an accumulator's resource.
with tf.Graph().as_default():
    acc = tf.ConditionalAccumulator(tf.float32, [2], name="acc")
    base = tf.ConditionalAccumulatorBase(tf.float32, [2], acc.accumulator_ref)
    n = base.num_accumulated()
    step = base.set_global_step(3)
    apply = acc.apply_grad([1.0, 2.0], local_step=0)
    with tf.Session() as sess:
        sess.run(apply)
        count = sess.run(n)
        sess.run(step)
    rec.add(
        "conditional_accumulator_base",
        num_accumulated_name=n.op.name,
        set_global_step_name=step.name,
        name=base.name,
        dtype=base.dtype.name,
        subclasses=[
            isinstance(acc, tf.ConditionalAccumulatorBase),
            isinstance(tf.SparseConditionalAccumulator(tf.float32), tf.ConditionalAccumulatorBase),
        ],
        count=count,
    )
rec.save()
