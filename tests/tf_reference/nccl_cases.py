"""Programs for TF's NCCL ops (nccl_ops.py: all_sum/prod/min/max, reduce_sum, broadcast and
their gradients). TF 1.15 has GPU kernels only: on a machine without GPUs the recorder builds
each graph on /gpu:N devices (names, op types, attrs, shapes, dtypes, the gradient graph) and
computes the values the ops must give with TF's own CPU math (add_n, reduce_prod, ...);
tests/unit/test_nccl_ops.py builds the same graphs on tfcluster and runs the NCCL ops
themselves on its CPU kernels. Python 3.7 code: the recorder runs it under TF 1.15."""

import numpy as np


def _nccl_ops(tf):
    if tf.__name__.startswith("tensorflow"):
        from tensorflow.python.ops import nccl_ops
    else:
        from tfcluster.ops import nccl_ops
    return nccl_ops


def inputs(dtype=np.float32):
    rng = np.random.RandomState(5)
    return [(rng.randn(2, 3) * 3).astype(dtype) for _ in range(3)]


def _describe(ops):
    out = []
    for op in ops:
        attrs = {}
        for name in ("reduction", "num_devices", "shared_name"):
            try:
                value = op.get_attr(name)
            except ValueError:
                continue
            attrs[name] = value.decode() if isinstance(value, bytes) else value
        out.append(
            {
                "name": op.name,
                "type": op.type,
                "device": op.device,
                "attrs": attrs,
                "inputs": [t.name for t in op.inputs],
                "shapes": [t.shape.as_list() for t in op.outputs],
                "dtypes": [t.dtype.name for t in op.outputs],
            }
        )
    return out


def build(tf, device_of):
    """The NCCL graph (forward and gradients) on devices device_of(0..2)."""
    nccl = _nccl_ops(tf)
    xs = []
    for i, x in enumerate(inputs()):
        with tf.device(device_of(i)):
            xs.append(tf.Variable(x, name=f"x{i}"))

    def copies():
        out = []
        for i, x in enumerate(xs):
            with tf.device(device_of(i)):
                out.append(x * 1.0)
        return out

    sums = nccl.all_sum(copies())
    prods = nccl.all_prod(copies())
    mins = nccl.all_min(copies())
    maxs = nccl.all_max(copies())
    to_reduce = copies()
    with tf.device(device_of(0)):
        reduced = nccl.reduce_sum(to_reduce)
    with tf.device(device_of(1)):
        sent = nccl.broadcast(xs[1] * 1.0)
    consumers = []
    for i in (1, 2):
        with tf.device(device_of(i)):
            consumers.append(tf.reduce_sum(tf.square(sent)) * float(i))
    parts = []
    for i, s in enumerate(sums):
        with tf.device(device_of(i)):
            parts.append(tf.reduce_sum(s * s))
    with tf.device(device_of(0)):
        loss = tf.add_n(parts) + tf.reduce_sum(reduced * reduced) + tf.add_n(consumers)
    grads = tf.gradients(loss, xs, colocate_gradients_with_ops=True)
    graph = tf.get_default_graph()
    nccl_ops = [op for op in graph.get_operations() if op.type.startswith("Nccl")]
    return {
        "xs": xs,
        "sums": sums,
        "prods": prods,
        "mins": mins,
        "maxs": maxs,
        "reduced": reduced,
        "sent": sent,
        "grads": grads,
        "graph": _describe(nccl_ops),
    }


def expected_values(tf):
    """What the ops compute, by TF's CPU math (TF 1.15 has no CPU kernel for them)."""
    xs = [tf.constant(x) for x in inputs()]
    total = tf.add_n(xs)
    stacked = tf.stack(xs)
    # d loss / d x_i: all_sum part 3 * 2 * sum; reduce_sum part 2 * sum; broadcast part
    # (for x1 only) 2 * x1 * (1 + 2).
    grads = [6.0 * total + 2.0 * total + (6.0 * xs[1] if i == 1 else 0.0) for i in range(3)]
    with tf.Session() as sess:
        got = sess.run(
            {
                "sum": total,
                "prod": tf.reduce_prod(stacked, 0),
                "min": tf.reduce_min(stacked, 0),
                "max": tf.reduce_max(stacked, 0),
                "sent": xs[1],
                "grads": grads,
            }
        )
    return got


def gradient_errors(tf):
    """Gradients TF refuses: of a non-sum all-reduce or reduce (LookupError)."""
    nccl = _nccl_ops(tf)
    out = {}
    with tf.Graph().as_default():
        with tf.device("/gpu:0"):
            a = tf.constant([1.0, 2.0])
        with tf.device("/gpu:1"):
            b = tf.constant([3.0, 4.0])
        prods = nccl.all_prod([a, b])
        try:
            tf.gradients(prods[0], [a])
            out["all_prod"] = None
        except LookupError as e:
            out["all_prod"] = type(e).__name__ + ": " + str(e)
        try:
            nccl.all_sum([])
            out["empty"] = None
        except ValueError as e:
            out["empty"] = str(e)
        try:
            nccl.all_sum([tf.constant([1.0])])
            out["no_device"] = None
        except ValueError as e:
            out["no_device"] = str(e)
    return out
