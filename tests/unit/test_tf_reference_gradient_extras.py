"""tf.custom_gradient, grad_pass_through, recompute_grad, hessians, the aggregation and
unconnected-gradient options, identity_n and tf.switch_case against TensorFlow 1.15's recorded
answers (tests/tf_reference/gradient_extras_cases.py): values, tensor names, gradients and
error classes."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import gradient_extras_cases as cases
from tf_reference import reference

CASES = cases.recorded_cases()
AREA = "gradient_extras"
# Names tfcluster gives differently, with why (values are still compared).
OWN_NAMES = {
    # TF names these gradient tensors after its Case op's gradient (a Case op of its own);
    # tfcluster builds switch_case from nested If ops, whose gradients are named otherwise.
    "switch_case_list_with_default": ("dx",),
    "switch_case_dict_of_tuples": ("dx",),
    # TF 1.15's loops and conds are Enter/Exit/Merge ops; tfcluster's are functional While/If
    # ops (the project's control flow), whose outputs are named after them.
    "custom_gradient_in_while_loop_and_cond": ("acc", "d_acc", "c", "d_c"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradient_extras_match_tensorflow(case: str) -> None:
    program, index = CASES[case]
    want = reference.case(AREA, case)
    got = cases.run(tf, program, index)
    if "error" in want:
        assert "error" in got, f"{case}: TF raised {want['error']}, tfcluster did not"
        assert type(got["error"]).__name__ == reference.error_class(want["error"]), got["error"]
        assert got["stage"] == want["stage"]
        return
    if "error" in got:
        raise AssertionError(f"{case}: tfcluster raised while {got['stage']}ing") from got["error"]
    own = OWN_NAMES.get(program, ())
    for key, value in want.items():
        if key.startswith("name:"):
            if key[5:] not in own:
                assert got[key] == value, f"{case}: {key[5:]} is {got[key]!r}, TF's {value!r}"
        else:
            got_value = np.asarray(got[key])
            assert got_value.dtype == np.asarray(value).dtype, key
            np.testing.assert_allclose(got_value, value, rtol=2e-6, atol=1e-6, err_msg=key)


def test_no_gradient_marks_an_op_type_not_differentiable() -> None:
    from tfcluster.gradients import registry

    assert tf.NoGradient is tf.no_gradient
    tf.NoGradient("GradientExtrasTestOnlyOp")
    assert registry.lookup("GradientExtrasTestOnlyOp") is None


def test_recompute_grad_with_a_variable_matches_plain_gradients() -> None:
    # TF 1.15 fails here (its tape cannot watch reference variables, a SystemError); tfcluster
    # differentiates the replayed f with respect to the variable too.
    x_value = np.array([0.5, -1.25, 2.0], np.float32)
    with tf.Graph().as_default():
        x = tf.constant(x_value)
        w = tf.Variable(0.75, name="w")

        def f(t: object) -> object:
            return tf.tanh(t * w) * w

        y = tf.recompute_grad(f)(x)
        got = tf.gradients(tf.reduce_sum(y), [x, w])
        want = tf.gradients(tf.reduce_sum(f(x)), [x, w])
        # The gradient replays f: its ops are made again under the gradient's scope.
        assert any(
            op.type == "Tanh" and "IdentityN_grad" in op.name
            for op in tf.get_default_graph().get_operations()
        )
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_v, want_v = sess.run([got, want])
    for g, w_ in zip(got_v, want_v):
        np.testing.assert_allclose(g, w_, rtol=1e-6)
