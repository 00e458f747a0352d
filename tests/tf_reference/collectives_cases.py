"""Programs for TF's collective ops across tasks and MultiWorkerMirroredStrategy: each case
gets `tf` (TensorFlow 1.15 when recorded by record_collectives.py, tfcluster in
tests/integration/test_collectives_across_tasks.py) and a cluster of worker tasks
(`Cluster`: their session targets and addresses), and returns what it computes. The members
of a group are the tasks' CPUs, one per task, in one client graph (in-graph), or one graph
and session per worker (between-graph: MultiWorkerMirroredStrategy). Python 3.7 code: the
recorder runs it under TF 1.15 itself."""

import threading

import numpy as np

N_TASKS = 3


class Cluster:
    """`targets[i]`: task i's session target; `addresses`: {'worker': [host:port, ...]}."""

    def __init__(self, targets, addresses):
        self.targets = targets
        self.addresses = addresses

    def device(self, i):
        return f"/job:worker/task:{i}"


def _run(tf, cluster, fetches, timeout_ms=60000):
    config = tf.ConfigProto(operation_timeout_in_ms=timeout_ms)
    with tf.Session(cluster.targets[0], config=config) as sess:
        return sess.run(fetches)


def _catch(tf, cluster, fetches):
    try:
        _run(tf, cluster, fetches, timeout_ms=20000)
    except tf.errors.OpError as e:
        return {"error": type(e).__name__}
    return {"error": None}


def _attrs(t):
    op = t.op
    return {
        "type": op.type,
        "group_size": op.get_attr("group_size"),
        "group_key": op.get_attr("group_key"),
        "instance_key": op.get_attr("instance_key"),
        "shape": t.shape.as_list() if t.shape.ndims is not None else None,
        "dtype": t.dtype.name,
    }


def _collective_ops(tf):
    """TF's collective_ops module (tensorflow.python.ops) or tfcluster's (ops)."""
    if tf.__name__.startswith("tensorflow"):
        from tensorflow.python.ops import collective_ops
    else:
        from tfcluster.ops import collective_ops
    return collective_ops


def _all_reduce_case(merge_op, final_op, dtype, n, group_key):
    def case(tf, cluster):
        ops = _collective_ops(tf)
        rng = np.random.RandomState(3)
        inputs = [(rng.randn(2, 3) * 4).astype(dtype) for _ in range(n)]
        outs = []
        for i in range(n):
            with tf.device(cluster.device(i)):
                outs.append(
                    ops.all_reduce(tf.constant(inputs[i]), n, group_key, 1, merge_op, final_op, [0])
                )
        try:
            outputs = _run(tf, cluster, outs, timeout_ms=20000)
        except tf.errors.OpError as e:  # TF 1.15's kernel takes merge_op Add or Mul only
            return {"error": type(e).__name__, "message": e.message.split("\n")[0]}
        return {"outputs": outputs, "attrs": _attrs(outs[0])}

    return case


def int_div_truncates(tf, cluster):
    ops = _collective_ops(tf)
    values = [[7, -7, 5, -1], [0, 0, 0, 0], [1, 1, 1, 2]]
    outs = []
    for i in range(3):
        with tf.device(cluster.device(i)):
            outs.append(ops.all_reduce(tf.constant(values[i]), 3, 8, 1, "Add", "Div", [0]))
    return {"outputs": _run(tf, cluster, outs)}


def gather_in_device_order(tf, cluster):
    ops = _collective_ops(tf)
    outs = []
    for i in range(3):
        with tf.device(cluster.device(i)):
            x = tf.constant(np.full((2, 2), i + 1, np.int64) * [[1, 10], [100, 1000]])
            outs.append(ops.all_gather(x, 3, 9, 1))
    floats = []
    for i in range(2):
        with tf.device(cluster.device(i)):
            floats.append(ops.all_gather(tf.constant([float(i), 0.5]), 2, 10, 2))
    got = _run(tf, cluster, [outs, floats])
    return {"ints": got[0], "floats": got[1], "attrs": _attrs(outs[0])}


def broadcast_from_one_member(tf, cluster):
    ops = _collective_ops(tf)
    outs = []
    value = np.arange(6, dtype=np.float64).reshape(2, 3) / 7.0
    for i in range(3):
        with tf.device(cluster.device(i)):
            # The source is on the group leader's task: TF 1.15's in-graph broadcast from
            # another task fails ("found no source for broadcast"), tfcluster's works too.
            if i == 0:
                outs.append(ops.broadcast_send(tf.constant(value), [2, 3], tf.float64, 3, 11, 1))
            else:
                outs.append(ops.broadcast_recv([2, 3], tf.float64, 3, 11, 1))
    return {"outputs": _run(tf, cluster, outs), "attrs": [_attrs(outs[0]), _attrs(outs[1])]}


def steps_pair_by_run(tf, cluster):
    """Each run of the graph is one round: the members' n-th runs meet."""
    ops = _collective_ops(tf)
    outs = []
    counters = []
    for i in range(2):
        with tf.device(cluster.device(i)):
            v = tf.Variable(float(i + 1), name=f"counter_{i}")
            step = tf.assign_add(v, 10.0 * (i + 1))
            counters.append(v)
            outs.append(ops.all_reduce(step, 2, 12, 1, "Mul", "Id", [0]))
    config = tf.ConfigProto(operation_timeout_in_ms=60000)
    with tf.Session(cluster.targets[0], config=config) as sess:
        sess.run([v.initializer for v in counters])
        got = [sess.run(outs) for _ in range(3)]
    return {"rounds": got}


def reduce_shapes_differ(tf, cluster):
    ops = _collective_ops(tf)
    outs = []
    for i, v in enumerate([[1.0, 2.0], [1.0, 2.0, 3.0]]):
        with tf.device(cluster.device(i)):
            outs.append(ops.all_reduce(tf.constant(v), 2, 13, 1, "Add", "Id", [0]))
    return _catch(tf, cluster, outs)


def gather_shapes_differ(tf, cluster):
    ops = _collective_ops(tf)
    outs = []
    for i, v in enumerate([[1.0, 2.0], [1.0, 2.0, 3.0]]):
        with tf.device(cluster.device(i)):
            outs.append(ops.all_gather(tf.constant(v), 2, 14, 1))
    return _catch(tf, cluster, outs)


def _build_error(fn):
    try:
        fn()
    except (ValueError, TypeError) as e:
        return {"error": type(e).__name__, "message": str(e).split(" for '")[0]}
    return {"error": None, "message": ""}


def build_time_checks(tf, cluster):
    ops = _collective_ops(tf)
    out = {}
    with tf.device(cluster.device(0)):
        x = tf.constant([1.0, 2.0])
        out["reduce_group_of_one"] = _build_error(
            lambda: ops.all_reduce(x, 1, 1, 1, "Add", "Id", [0])
        )
        out["gather_group_of_one"] = _build_error(lambda: ops.all_gather(x, 1, 1, 1))
        out["gather_scalar"] = _build_error(lambda: ops.all_gather(tf.constant(1.0), 2, 1, 1))
        out["send_shape"] = _build_error(lambda: ops.broadcast_send(x, [3], tf.float32, 2, 1, 1))
        out["send_dtype"] = _build_error(lambda: ops.broadcast_send(x, [2], tf.float64, 2, 1, 1))
        out["recv_group_of_one"] = _build_error(
            lambda: ops.broadcast_recv([2], tf.float32, 1, 1, 1)
        )
    out["reduce_without_device"] = _build_error(
        lambda: ops.all_reduce(tf.constant([1.0]), 2, 1, 1, "Add", "Id", [0])
    )
    return out


def _mwms_worker(tf, cluster, index, steps, out):
    x_np = np.arange(36, dtype=np.float32).reshape(18, 2) / 10.0
    y_np = (x_np.sum(1, keepdims=True) * 0.5 + 0.25).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default():
        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
        strategy.configure(cluster_spec=cluster.addresses, task_type="worker", task_id=index)

        def input_fn(ctx):
            ds = tf.data.Dataset.from_tensor_slices((x_np, y_np))
            return ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id).batch(2).repeat()

        with strategy.scope():
            iterator = strategy.make_input_fn_iterator(input_fn)
            gs = tf.train.get_or_create_global_step()
            # Each worker's own start value: the chief's must win (broadcast).
            w = tf.get_variable("w", [2, 1], initializer=tf.constant_initializer(0.1 * (index + 1)))
            b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())

            def step(inputs):
                x, y = inputs
                loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
                train = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss, global_step=gs)
                with tf.control_dependencies([train]):
                    return tf.identity(loss)

            loss = strategy.experimental_run_v2(step, args=(iterator.get_next(),))
            total = strategy.reduce(tf.distribute.ReduceOp.SUM, loss)
            mean = strategy.reduce(tf.distribute.ReduceOp.MEAN, loss)
        config = strategy.update_config_proto(tf.ConfigProto())
        collective = sorted(
            [n.name, n.op, n.attr["group_key"].i, n.attr["group_size"].i, n.attr["instance_key"].i]
            for n in graph.as_graph_def().node
            if n.op.startswith("Collective")
        )
        with tf.Session(cluster.targets[index], config=config) as sess:
            sess.run([tf.global_variables_initializer(), iterator.initializer])
            start = sess.run(w)
            got = [sess.run([total, mean]) for _ in range(steps)]
            out[index] = {
                "start": start,
                "w": sess.run(w),
                "b": sess.run(b),
                "totals": np.array([g[0] for g in got], np.float32),
                "means": np.array([g[1] for g in got], np.float32),
                "step": int(sess.run(gs)),
                "collective_ops": collective,
                "leader": config.experimental.collective_group_leader,
                "device_filters": list(config.device_filters),
            }


def multi_worker_mirrored_training(tf, cluster):
    out = {}
    errors = []

    def run(i):
        try:
            _mwms_worker(tf, cluster, i, 5, out)
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(N_TASKS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(240)
    if errors:
        raise errors[0]
    return {f"worker_{i}": out[i] for i in range(N_TASKS)}


CASES = {
    "reduce_add_div_float32": _all_reduce_case("Add", "Div", np.float32, 3, 21),
    "reduce_add_id_float64": _all_reduce_case("Add", "Id", np.float64, 2, 22),
    "reduce_mul_float32": _all_reduce_case("Mul", "Id", np.float32, 3, 23),
    "reduce_min_int32": _all_reduce_case("Min", "Id", np.int32, 3, 24),
    "reduce_max_int64": _all_reduce_case("Max", "Id", np.int64, 2, 25),
    "int_div_truncates": int_div_truncates,
    "gather_in_device_order": gather_in_device_order,
    "broadcast_from_one_member": broadcast_from_one_member,
    "steps_pair_by_run": steps_pair_by_run,
    "reduce_shapes_differ": reduce_shapes_differ,
    "gather_shapes_differ": gather_shapes_differ,
    "build_time_checks": build_time_checks,
    "multi_worker_mirrored_training": multi_worker_mirrored_training,
}
