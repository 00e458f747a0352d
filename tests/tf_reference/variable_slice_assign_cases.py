"""Sliced assignment to variables (`v[1:3].assign(x)`, `v[0, 1].assign(7.)`), ref and
resource variables: the values after each assignment, the ops each builds (a resource
variable read before the slice, `strided_slice/_assign`, a ref assignment's value converted
in its own scope) and the ValueError of assigning to a slice of a plain tensor. Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_variable_slice_assign.py and on
tfcluster by tests/unit/test_variable_slice_assign.py. Python 3.7 code."""

CASES = {}


def _program(tf, use_resource):
    tf.reset_default_graph()
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], use_resource=use_resource)
    rows = v[1:3].assign([[9.0, 8.0], [7.0, 6.0]])
    one = v[0, 1].assign(7.0)
    column = v[:, 0].assign(tf.constant([0.0, 0.0, 0.0]))
    named = v[2, ::-1].assign(tf.constant([4.0, 5.0]), name="reversed_row")
    first_row = v[0]
    with tf.Session() as sess:
        sess.run(v.initializer)
        values = [sess.run(t).tolist() for t in (rows, one, column, named, first_row)]
        final = sess.run(v).tolist()
    ops = [[op.name, op.type] for op in tf.get_default_graph().get_operations()]
    try:
        tf.constant([1.0])[0].assign(2.0)
        error = None
    except ValueError as e:
        error = ["ValueError", str(e)]
    return {"values": values, "final": final, "ops": ops, "tensor_slice_assign": error}


def ref_variable_slices(tf):
    return _program(tf, False)


def resource_variable_slices(tf):
    return _program(tf, True)


CASES["ref_variable_slices"] = ref_variable_slices
CASES["resource_variable_slices"] = resource_variable_slices
