"""Programs using TF 1.15's For, SymbolicGradient, MapDefun, RemoteCall and BatchFunction raw
ops with concrete functions: each builds its graph with `tf` (TF 1.15 under
record_function_loops.py, tfcluster in tests/unit/test_function_loops.py) and returns what it
computes, error classes included. Python 3.7 code: the recorder runs it under TF 1.15."""

import numpy as np

try:
    from tf_reference.case_tools import error_class as _error
except ImportError:  # run by the recorder from tests/tf_reference
    from case_tools import error_class as _error


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _spec(tf, shape, dtype):
    return tf.TensorSpec(shape, dtype)


def for_loop(tf):
    @tf.function
    def body(i, x, v):
        return x + tf.cast(i, tf.float32), v * 2.0

    f = body.get_concrete_function(
        _spec(tf, [], tf.int32), _spec(tf, [], tf.float32), _spec(tf, [2], tf.float32)
    )
    start = tf.placeholder(tf.int32, [])
    limit = tf.placeholder(tf.int32, [])
    delta = tf.placeholder(tf.int32, [])
    out = tf.raw_ops.For(
        start=start,
        limit=limit,
        delta=delta,
        input=[tf.constant(0.5), tf.constant([1.0, -3.0])],
        body=f,
    )
    result = {"shapes": [str(t.shape) for t in out], "dtypes": [t.dtype.name for t in out]}
    with tf.Session() as sess:
        for label, (a, b, c) in (
            ("up", (1, 10, 3)),
            ("down", (10, 1, -3)),
            ("empty", (5, 5, 1)),
            ("one", (0, 1, 1)),
        ):
            result[label] = sess.run(out, {start: a, limit: b, delta: c})
        for label, (a, b, c) in (
            ("zero_delta", (1, 10, 0)),
            ("wrong_way_up", (10, 1, 2)),
            ("wrong_way_down", (1, 10, -1)),
        ):
            feed = {start: a, limit: b, delta: c}
            result[label] = _error(lambda feed=feed: sess.run(out, feed))
    return result


def symbolic_gradient(tf):
    @tf.function
    def f(x, y):
        return x * y + tf.sin(x), tf.square(y)

    @tf.function
    def mm(a, b):
        return tf.matmul(a, b)

    s = _spec(tf, [], tf.float32)
    grads = tf.raw_ops.SymbolicGradient(
        input=[tf.constant(2.0), tf.constant(3.0), tf.constant(1.5), tf.constant(-0.5)],
        Tout=[tf.float32, tf.float32],
        f=f.get_concrete_function(s, s),
    )
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(6, dtype=np.float32).reshape(3, 2) - 2.0
    dy = np.array([[1.0, 2.0], [0.5, -1.0]], np.float32)
    mm_grads = tf.raw_ops.SymbolicGradient(
        input=[a, b, dy],
        Tout=[tf.float32, tf.float32],
        f=mm.get_concrete_function(_spec(tf, [2, 3], tf.float32), _spec(tf, [3, 2], tf.float32)),
    )
    short = tf.raw_ops.SymbolicGradient(
        input=[tf.constant(2.0), tf.constant(3.0), tf.constant(1.5)],
        Tout=[tf.float32, tf.float32],
        f=f.get_concrete_function(s, s),
    )
    with tf.Session() as sess:
        return {
            "grads": sess.run(grads),
            "matmul": sess.run(mm_grads),
            "shapes": [str(t.shape) for t in grads + mm_grads],
            "too_few_inputs": _error(lambda: sess.run(short)),
        }


def map_defun(tf):
    @tf.function
    def f(a, c):
        return a * c, tf.reduce_sum(a)

    @tf.function
    def g(a):
        return a * 2.0

    fn = f.get_concrete_function(_spec(tf, [2], tf.float32), _spec(tf, [], tf.float32))
    rows = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    out = tf.raw_ops.MapDefun(
        arguments=[rows],
        captured_inputs=[tf.constant(2.0)],
        output_types=[tf.float32, tf.float32],
        output_shapes=[[2], []],
        f=fn,
    )
    empty = tf.raw_ops.MapDefun(
        arguments=[tf.zeros([0, 2])],
        captured_inputs=[tf.constant(2.0)],
        output_types=[tf.float32, tf.float32],
        output_shapes=[[2], []],
        f=fn,
    )
    bad_shape = tf.raw_ops.MapDefun(
        arguments=[rows],
        captured_inputs=[],
        output_types=[tf.float32],
        output_shapes=[[3]],
        f=g.get_concrete_function(_spec(tf, None, tf.float32)),
    )
    result = {"shapes": [str(t.shape) for t in out + empty]}
    result["mismatched_dim0"] = _error(
        lambda: tf.raw_ops.MapDefun(
            arguments=[rows, tf.constant([1.0, 2.0])],
            captured_inputs=[],
            output_types=[tf.float32],
            output_shapes=[[2]],
            f=g.get_concrete_function(_spec(tf, None, tf.float32)),
        )
    )
    result["scalar_argument"] = _error(
        lambda: tf.raw_ops.MapDefun(
            arguments=[tf.constant(1.0)],
            captured_inputs=[],
            output_types=[tf.float32],
            output_shapes=[[]],
            f=g.get_concrete_function(_spec(tf, None, tf.float32)),
        )
    )
    with tf.Session() as sess:
        result["values"] = sess.run(out)
        result["empty"] = sess.run(empty)
        result["bad_output_shape"] = _error(lambda: sess.run(bad_shape))
    return result


def remote_call(tf):
    @tf.function
    def f(x, y):
        return x * 10.0 + y, x - y

    s = _spec(tf, [], tf.float32)
    fn = f.get_concrete_function(s, s)
    target = tf.placeholder(tf.string, [])
    out = tf.raw_ops.RemoteCall(
        target=target,
        args=[tf.constant(2.0), tf.constant(0.5)],
        Tout=[tf.float32, tf.float32],
        f=fn,
    )
    with tf.Session() as sess:
        return {
            "shapes": [str(t.shape) for t in out],
            "local": sess.run(out, {target: "/job:localhost/replica:0/task:0/device:CPU:0"}),
            "unknown_task": _error(
                lambda: sess.run(out, {target: "/job:worker/replica:0/task:3/device:CPU:0"})
            ),
            "not_a_device": _error(lambda: sess.run(out, {target: "nonsense"})),
        }


def batch_function(tf):
    @tf.function
    def f(x, c):
        return x * c + 1.0, tf.reduce_sum(x, axis=1)

    fn = f.get_concrete_function(_spec(tf, [None, 2], tf.float32), _spec(tf, [], tf.float32))
    x = tf.placeholder(tf.float32, [None, 2])
    out = tf.raw_ops.BatchFunction(
        in_tensors=[x],
        captured_tensors=[tf.constant(3.0)],
        f=fn,
        num_batch_threads=1,
        max_batch_size=4,
        batch_timeout_micros=1000,
        allowed_batch_sizes=[2, 4],
        Tout=[tf.float32, tf.float32],
        shared_name="funcloops_batch",
    )
    with tf.Session() as sess:
        return {
            "shapes": [str(t.shape) for t in out],
            "one": sess.run(out, {x: [[1.0, 2.0]]}),
            "three": sess.run(out, {x: [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]}),
            "too_big": _error(lambda: sess.run(out, {x: np.ones([5, 2], np.float32)})),
        }


def function_executor_type(tf):
    @tf.function
    def f(x):
        return x * 2.0

    x = tf.constant(3.0)
    calls = {"default": f(x)}
    with tf.experimental.function_executor_type("SINGLE_THREADED_EXECUTOR"):
        calls["single"] = f(x)
        with tf.experimental.function_executor_type("NO_SUCH_EXECUTOR"):
            calls["unknown"] = f(x)
        calls["restored"] = f(x)
    calls["after"] = f(x)
    result = {
        "executor_types": {k: _text(t.op.get_attr("executor_type")) for k, t in calls.items()},
        "op_types": {k: t.op.type for k, t in calls.items()},
    }
    with tf.Session() as sess:
        result["values"] = sess.run(calls)
    return result


def output_all_intermediates(tf):
    p = tf.placeholder(tf.bool, [])
    x = tf.constant(2.0)
    returned = [tf.experimental.output_all_intermediates(True)]
    y = tf.cond(p, lambda: tf.sin(x) * x, lambda: tf.exp(x))
    (grad,) = tf.gradients(y, [x])
    returned.append(tf.experimental.output_all_intermediates(False))
    z = tf.cond(p, lambda: tf.sin(x) * x, lambda: tf.exp(x))
    (grad_z,) = tf.gradients(z, [x])
    returned.append(tf.experimental.output_all_intermediates(None))
    with tf.Session() as sess:
        return {
            "returned": returned,
            "true": sess.run([y, grad, z, grad_z], {p: True}),
            "false": sess.run([y, grad, z, grad_z], {p: False}),
        }


CASES = {
    "function_executor_type": function_executor_type,
    "output_all_intermediates": output_all_intermediates,
    "for_loop": for_loop,
    "symbolic_gradient": symbolic_gradient,
    "map_defun": map_defun,
    "remote_call": remote_call,
    "batch_function": batch_function,
}
