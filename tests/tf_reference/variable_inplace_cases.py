"""In-place operators (+=, -=, *=, /=, **=) on variables, written once against the TF1 API and
run twice: by record_variable_inplace.py with TensorFlow 1.15 (`tf` is
tensorflow.compat.v1) and by tests/unit/test_variable_inplace.py with tfcluster. A resource
variable (get_variable(use_resource=True), a Keras backend variable) refuses them with TF's
RuntimeError; a reference variable gives a new Tensor. Kept runnable on Python 3.7."""

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}


case = registrar(CASES, own_graph=True)


def _each_operator(make):
    out = {}
    for name, apply in (
        ("iadd", lambda v: v.__iadd__(2.0)),
        ("isub", lambda v: v.__isub__(2.0)),
        ("imul", lambda v: v.__imul__(2.0)),
        ("itruediv", lambda v: v.__itruediv__(2.0)),
        ("ipow", lambda v: v.__ipow__(2.0)),
    ):
        v = make(name)
        try:
            got = apply(v)
            out[name] = {"result": type(got).__name__}
        except Exception as e:
            out[name] = {"error": type(e).__name__, "message": str(e)}
    return out


@case
def resource_variable(tf):
    return _each_operator(lambda n: tf.get_variable(n, [], use_resource=True))


@case
def keras_backend_variable(tf):
    return _each_operator(lambda n: tf.keras.backend.variable(1.0, name=n))


@case
def augmented_assignment_statement(tf):
    v = tf.get_variable("v", [], use_resource=True)
    try:
        v += 1.0
        return {"result": type(v).__name__}
    except RuntimeError as e:
        return {"error": type(e).__name__, "message": str(e)}


@case
def reference_variable(tf):
    return _each_operator(lambda n: tf.Variable(1.0, name=n))


@case
def state_ops_on_slices_and_tensors(tf):
    """tf.assign / assign_add on what is not a reference: TF 1.15 calls the object's own
    method, so a variable slice assigns through StridedSliceAssign and a plain tensor fails
    with Python's AttributeError."""
    v = tf.Variable(tf.zeros((4, 2)), name="e")
    start = tf.placeholder(tf.int32)
    size = tf.placeholder(tf.int32)
    x = tf.placeholder(tf.float32, [None, 2])
    sliced = tf.assign(v[start : start + size], tf.reshape(x, (size, 2)))
    named = tf.assign(v[0], [7.0, 8.0], name="named")
    out = {
        "ops": [[t.op.type, t.op.name, t.dtype.name] for t in (sliced, named)],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["sliced"] = sess.run(sliced, {start: 1, size: 2, x: [[1, 2], [3, 4]]}).tolist()
        out["named"] = sess.run(named).tolist()
    for label, fn in (
        ("assign_tensor", lambda: tf.assign(tf.constant(1.0), 2.0)),
        ("assign_add_tensor", lambda: tf.assign_add(v + 1.0, 2.0)),
        ("assign_sub_slice", lambda: tf.assign_sub(v[0], [1.0, 1.0])),
    ):
        try:
            fn()
            out[label] = None
        except Exception as e:  # the class and message are compared
            out[label] = [type(e).__name__, str(e)]
    return out


@case
def resource_variable_create_and_numpy(tf):
    """A resource variable's `create` (its initializer op) and numpy() (graph mode: TF's
    NotImplementedError); a reference variable has neither."""
    v = tf.get_variable("rv", [2], use_resource=True)
    out = {"create": [v.create.type, v.create.name, v.create is v.initializer]}
    try:
        v.numpy()
    except NotImplementedError as e:
        out["numpy"] = str(e)
    ref = tf.Variable(1.0)
    out["reference"] = [hasattr(ref, "create"), hasattr(ref, "numpy")]
    return out
