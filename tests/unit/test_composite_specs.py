"""tf.IndexedSlicesSpec and tf.TensorArraySpec repr, compare, check and merge as TF 1.15's
(recorded by tests/tf_reference/record_composite_specs.py from composite_spec_cases.py)."""

from __future__ import annotations

import tfcluster as tf
from tf_reference import reference
from tf_reference.composite_spec_cases import indexed_slices_specs, tensor_array_specs


def test_indexed_slices_spec_as_tf() -> None:
    assert indexed_slices_specs(tf) == reference.case("composite_specs", "indexed_slices_specs")


def test_tensor_array_spec_as_tf() -> None:
    assert tensor_array_specs(tf) == reference.case("composite_specs", "tensor_array_specs")


def test_conditional_accumulator_base_wraps_an_accumulator_as_tf() -> None:
    recorded = reference.case("composite_specs", "conditional_accumulator_base")
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
        assert n.op.name == recorded["num_accumulated_name"]
        assert (base.name, base.dtype.name) == (recorded["name"], recorded["dtype"])
        assert [
            isinstance(acc, tf.ConditionalAccumulatorBase),
            isinstance(tf.SparseConditionalAccumulator(tf.float32), tf.ConditionalAccumulatorBase),
        ] == recorded["subclasses"]
        assert count == recorded["count"]
        # TF 1.15 names this op ResourceAccumulatorSetGlobalStep (its accumulators are
        # resources); tfcluster's ConditionalAccumulator uses the ref ops' name.
        assert recorded["set_global_step_name"] == "ResourceAccumulatorSetGlobalStep"
        assert step.name == "AccumulatorSetGlobalStep"
