"""Programs using tf.distribute strategies in graph mode, run on TensorFlow 1.15 by
record_distribute.py and on tfcluster by test_tf_reference_distribute.py.

Each program takes the `tf` module and returns {key: value} of plain values (names, numbers,
numpy arrays) or of exceptions it caught. Sessions get two CPU devices with soft placement,
so that two-replica strategies run on both frameworks. Kept runnable on Python 3.7.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

PROGRAMS: dict[str, Callable[[Any], dict[str, Any]]] = {}


def program(name: str) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    def deco(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
        PROGRAMS[name] = fn
        return fn

    return deco


def run(tf: Any, name: str) -> dict[str, Any]:
    with tf.Graph().as_default():
        return PROGRAMS[name](tf)


def _caught(fn: Callable[[], Any]) -> Any:
    try:
        fn()
    except Exception as e:  # the class is what is compared
        return e
    return None


def _session(tf: Any) -> Any:
    return tf.Session(config=tf.ConfigProto(device_count={"CPU": 2}, allow_soft_placement=True))


STRATEGIES = {
    "mirrored_two": lambda tf: tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"]),
    "mirrored_default": lambda tf: tf.distribute.MirroredStrategy(),
    "one_device": lambda tf: tf.distribute.OneDeviceStrategy("/cpu:0"),
    "central_storage": lambda tf: tf.distribute.experimental.CentralStorageStrategy(),
    "parameter_server_local": lambda tf: tf.distribute.experimental.ParameterServerStrategy(),
    "multi_worker_local": lambda tf: tf.distribute.experimental.MultiWorkerMirroredStrategy(),
}


@program("contexts")
def _contexts(tf: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    out["outside"] = [
        tf.distribute.has_strategy(),
        tf.distribute.in_cross_replica_context(),
        tf.distribute.get_replica_context() is not None,
    ]
    out["loss_reduction"] = str(tf.distribute.get_loss_reduction())
    for key, make in sorted(STRATEGIES.items()):
        s = make(tf)
        with s.scope():
            inside = [
                tf.distribute.has_strategy(),
                tf.distribute.in_cross_replica_context(),
                tf.distribute.get_replica_context() is None,
                tf.distribute.get_strategy() is s,
            ]
        seen: list[Any] = []

        def fn(seen: list[Any] = seen) -> Any:
            ctx = tf.distribute.get_replica_context()
            seen.append([tf.distribute.in_cross_replica_context(), ctx.num_replicas_in_sync])
            return ctx.replica_id_in_sync_group

        ids = s.experimental_run_v2(fn)
        with _session(tf) as sess:
            out[key] = {
                "inside": inside,
                "in_replica": seen,
                "ids": [int(i) for i in sess.run(list(s.experimental_local_results(ids)))],
                "num_replicas": s.num_replicas_in_sync,
                "worker_devices": list(s.extended.worker_devices),
                "parameter_devices": list(s.extended.parameter_devices),
                "after": tf.distribute.has_strategy(),
            }
    return out


@program("mirrored_variables")
def _mirrored_variables(tf: Any) -> dict[str, Any]:
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with s.scope():
        w = tf.get_variable("w", [2], initializer=tf.constant_initializer(3.0))
        b = tf.get_variable("b", [], initializer=tf.zeros_initializer(), trainable=False)
        ws = s.experimental_local_results(w)
    seen: list[Any] = []

    def fn() -> Any:
        with tf.variable_scope(tf.get_variable_scope(), reuse=True):
            again = tf.get_variable("w", [2])
        seen.append(again is w)
        return again * 2.0

    doubled = s.experimental_run_v2(fn)
    with _session(tf) as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run([list(ws), list(s.experimental_local_results(doubled))])
    return {
        "type": type(w).__name__,
        "name": w.name,
        "copies": [v.name for v in ws],
        "global": sorted(v.name for v in tf.global_variables()),
        "trainable": sorted(v.name for v in tf.trainable_variables()),
        "b_copies": [v.name for v in s.experimental_local_results(b)],
        "same_in_replicas": seen,
        "values": np.array(values[0]),
        "doubled": np.array(values[1]),
        "aggregation": str(w.aggregation),
    }


@program("reduce_and_all_reduce")
def _reduce(tf: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("mirrored_two", "one_device", "central_storage"):
        s = STRATEGIES[key](tf)

        def fn() -> Any:
            ctx = tf.distribute.get_replica_context()
            rid = tf.cast(ctx.replica_id_in_sync_group, tf.float32)
            v = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]) * (rid + 1.0)
            total = ctx.all_reduce(tf.distribute.ReduceOp.SUM, v)
            mean = ctx.all_reduce("MEAN", v)
            return v, total, mean

        v, total, mean = s.experimental_run_v2(fn)
        built: list[Any] = []
        with s.scope():
            for op, axis in (("SUM", None), ("MEAN", None), ("SUM", 0), ("MEAN", 0), ("MEAN", 1)):
                try:
                    built.append(s.reduce(getattr(tf.distribute.ReduceOp, op), v, axis=axis))
                except Exception as e:  # TF 1.15 fails MEAN with an axis over several replicas
                    built.append(e)
        tensors = [b for b in built if not isinstance(b, Exception)]
        with _session(tf) as sess:
            got = sess.run(
                [
                    tensors,
                    list(s.experimental_local_results(total)),
                    list(s.experimental_local_results(mean)),
                ]
            )
        values = iter(got[0])
        out[key] = {
            "reduce": [b if isinstance(b, Exception) else np.asarray(next(values)) for b in built],
            "all_reduce_sum": [np.asarray(r) for r in got[1]],
            "all_reduce_mean": [np.asarray(r) for r in got[2]],
        }
    return out


def _train(tf: Any, make: Callable[[], Any], optimizer: str) -> dict[str, Any]:
    tf.set_random_seed(1)
    s = make()
    x_np = np.arange(16, dtype=np.float32).reshape(8, 2) / 10.0
    y_np = (x_np.sum(1, keepdims=True) * 0.5).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices((x_np, y_np)).repeat().batch(4)
    with s.scope():
        it = s.make_dataset_iterator(ds)
        gs = tf.train.get_or_create_global_step()

        def step(inputs: Any) -> Any:
            x, y = inputs
            w = tf.get_variable("w", [2, 1], initializer=tf.constant_initializer(0.1))
            b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
            pred = tf.matmul(x, w) + b
            loss = tf.losses.mean_squared_error(y, pred)
            if optimizer == "adam":
                opt = tf.train.AdamOptimizer(0.1)
            elif optimizer == "momentum":
                opt = tf.train.MomentumOptimizer(0.05, 0.9)
            else:
                opt = tf.train.GradientDescentOptimizer(0.1)
            train = opt.minimize(loss, global_step=gs)
            with tf.control_dependencies([train]):
                return tf.identity(loss)

        loss = s.experimental_run_v2(step, args=(it.get_next(),))
        mean_loss = s.reduce(tf.distribute.ReduceOp.MEAN, loss)
    w_var = next(v for v in tf.global_variables() if v.name == "w:0")
    with _session(tf) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(it.initialize())
        losses = [float(sess.run(mean_loss)) for _ in range(5)]
        copies = [sess.run(v) for v in s.experimental_local_results(w_var)]
        step_value = int(sess.run(gs))
    return {
        "losses": np.array(losses, dtype=np.float32),
        "w_copies": np.array(copies),
        "global_step": step_value,
        "global_variables": sorted(v.name for v in tf.global_variables()),
        "trainable": sorted(v.name for v in tf.trainable_variables()),
    }


def _train_program(key: str, optimizer: str) -> None:
    @program("train_" + key + "_" + optimizer)
    def _p(tf: Any) -> dict[str, Any]:
        return _train(tf, lambda: STRATEGIES[key](tf), optimizer)


for _key in sorted(STRATEGIES):
    for _opt in ("sgd", "adam", "momentum"):
        _train_program(_key, _opt)


@program("merge_call")
def _merge_call(tf: Any) -> dict[str, Any]:
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    kinds: list[Any] = []

    def merge_fn(strategy: Any, value: Any) -> Any:
        kinds.append([tf.distribute.in_cross_replica_context(), strategy is s])
        return strategy.extended.reduce_to(tf.distribute.ReduceOp.SUM, value, "/cpu:0")

    def fn() -> Any:
        ctx = tf.distribute.get_replica_context()
        v = tf.cast(ctx.replica_id_in_sync_group, tf.float32) + 10.0
        return ctx.merge_call(merge_fn, args=(v,))

    out = s.experimental_run_v2(fn)
    with _session(tf) as sess:
        values = sess.run(list(s.experimental_local_results(out)))
    return {"kinds": kinds, "values": np.array(values, dtype=np.float32)}


@program("mirrored_assign_in_replica")
def _assign(tf: Any) -> dict[str, Any]:
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with s.scope():
        mean_var = tf.Variable(0.0, name="m", aggregation=tf.VariableAggregation.MEAN)
        sum_var = tf.Variable(0.0, name="s", aggregation=tf.VariableAggregation.SUM)
        plain = tf.Variable(0.0, name="p")

    def fn() -> Any:
        rid = tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)
        return mean_var.assign(rid + 1.0), sum_var.assign_add(rid + 1.0)

    ops = s.experimental_run_v2(fn)
    errors = {"plain": _caught(lambda: s.experimental_run_v2(lambda: plain.assign(1.0)))}
    with s.scope():
        cross = plain.assign(5.0)
    with _session(tf) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([s.experimental_local_results(o) for o in ops])
        sess.run(s.experimental_local_results(cross))
        got = sess.run(
            [
                list(s.experimental_local_results(mean_var)),
                list(s.experimental_local_results(sum_var)),
                list(s.experimental_local_results(plain)),
            ]
        )
    return {
        "mean": np.array(got[0]),
        "sum": np.array(got[1]),
        "plain": np.array(got[2]),
        "errors": errors,
    }


@program("input_fn_iterator")
def _input_fn(tf: Any) -> dict[str, Any]:
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    seen: list[Any] = []

    def input_fn(ctx: Any) -> Any:
        seen.append(
            [
                ctx.num_input_pipelines,
                ctx.input_pipeline_id,
                ctx.num_replicas_in_sync,
                ctx.get_per_replica_batch_size(6),
            ]
        )
        return tf.data.Dataset.range(12).batch(ctx.get_per_replica_batch_size(6))

    it = s.make_input_fn_iterator(input_fn)
    nxt = it.get_next()
    with _session(tf) as sess:
        sess.run(it.initialize())
        first = sess.run(list(s.experimental_local_results(nxt)))
        second = sess.run(list(s.experimental_local_results(nxt)))
    context = tf.distribute.InputContext(
        num_input_pipelines=2, input_pipeline_id=1, num_replicas_in_sync=4
    )
    return {
        "seen": seen,
        "first": np.array(first),
        "second": np.array(second),
        "context": [
            context.num_input_pipelines,
            context.input_pipeline_id,
            context.num_replicas_in_sync,
            context.get_per_replica_batch_size(8),
        ],
        "indivisible": _caught(lambda: context.get_per_replica_batch_size(6)),
        "mode": str(tf.distribute.InputReplicationMode.PER_WORKER),
    }


@program("distribute_dataset")
def _distribute_dataset(tf: Any) -> dict[str, Any]:
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    ds = tf.data.Dataset.range(16).map(lambda x: tf.cast(x, tf.float32)).batch(4)
    dist = s.experimental_distribute_dataset(ds)
    it = dist.make_initializable_iterator()
    nxt = it.get_next()
    total = s.experimental_run_v2(lambda x: tf.reduce_sum(x) * 1.0, args=(nxt,))
    with s.scope():
        summed = s.reduce(tf.distribute.ReduceOp.SUM, total)
    with _session(tf) as sess:
        sess.run(it.initializer)
        parts = sess.run(list(s.experimental_local_results(nxt)))
        sums = [float(sess.run(summed)) for _ in range(2)]
    return {"parts": np.array(parts), "sums": sums}


@program("cross_device_ops")
def _cross_device_ops(tf: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, ops in (
        ("one_device", lambda: tf.distribute.ReductionToOneDevice()),
        ("one_device_cpu1", lambda: tf.distribute.ReductionToOneDevice(reduce_to_device="/cpu:1")),
        ("hierarchical", lambda: tf.distribute.HierarchicalCopyAllReduce()),
    ):
        s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"], cross_device_ops=ops())

        def fn() -> Any:
            rid = tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)
            return tf.fill([3], rid + 2.0)

        v = s.experimental_run_v2(fn)
        with s.scope():
            red = [s.reduce("SUM", v), s.reduce("MEAN", v)]
        with _session(tf) as sess:
            out[key] = np.array(sess.run(red))
    return out


@program("errors")
def _errors(tf: Any) -> dict[str, Any]:
    s1 = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    s2 = tf.distribute.OneDeviceStrategy("/cpu:0")

    def mixed() -> None:
        with s1.scope(), s2.scope():
            pass

    def sum_plain() -> None:
        with s1.scope():
            s1.reduce(tf.distribute.ReduceOp.SUM, tf.constant(1.0))

    return {
        "mixing": _caught(mixed),
        "sum_of_plain": _caught(sum_plain),
        "no_devices": _caught(lambda: tf.distribute.MirroredStrategy([])),
        "duplicates": _caught(lambda: tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:0"])),
        "bad_aggregation": _caught(
            lambda: tf.distribute.ReduceOp.from_variable_aggregation(tf.VariableAggregation.NONE)
        ),
        "reduce_op_values": [tf.distribute.ReduceOp.SUM.value, tf.distribute.ReduceOp.MEAN.value],
    }


@program("set_strategy")
def _set_strategy(tf: Any) -> dict[str, Any]:
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    tf.distribute.experimental_set_strategy(s)
    during = [
        tf.distribute.has_strategy(),
        tf.distribute.get_strategy() is s,
        tf.distribute.in_cross_replica_context(),
    ]
    v = tf.Variable(1.0, name="v")
    kind = type(v).__name__
    tf.distribute.experimental_set_strategy(None)
    after = [tf.distribute.has_strategy(), type(tf.distribute.get_strategy()).__name__]
    return {"during": during, "kind": kind, "after": after}


def _estimator_run(tf: Any, make_strategy: Callable[[], Any], with_context: bool) -> dict[str, Any]:
    import shutil
    import tempfile

    x_np = np.arange(32, dtype=np.float32).reshape(16, 2) / 10.0
    y_np = (x_np @ np.array([[0.5], [-0.25]], np.float32) + 0.1).astype(np.float32)
    seen: list[Any] = []

    def input_fn(input_context: Any = None) -> Any:
        batch = 8
        if input_context is not None:
            seen.append([input_context.num_input_pipelines, input_context.num_replicas_in_sync])
            batch = input_context.get_per_replica_batch_size(8)
        return tf.data.Dataset.from_tensor_slices(({"x": x_np}, y_np)).repeat().batch(batch)

    def plain_input_fn() -> Any:
        return tf.data.Dataset.from_tensor_slices(({"x": x_np}, y_np)).batch(16)

    def model_fn(features: Any, labels: Any, mode: str) -> Any:
        w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        pred = tf.matmul(features["x"], w) + b
        loss = tf.losses.mean_squared_error(labels, pred)
        train_op = tf.train.GradientDescentOptimizer(0.2).minimize(
            loss, global_step=tf.train.get_global_step()
        )
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    model_dir = tempfile.mkdtemp()
    try:
        session_config = tf.ConfigProto(device_count={"CPU": 2}, allow_soft_placement=True)
        config = tf.estimator.RunConfig(
            model_dir=model_dir,
            train_distribute=make_strategy(),
            session_config=session_config,
            tf_random_seed=3,
            log_step_count_steps=None,
        )
        est = tf.estimator.Estimator(model_fn, config=config)
        est.train(input_fn if with_context else (lambda: input_fn()), steps=6)
        est.train(input_fn if with_context else (lambda: input_fn()), steps=2)
        plain = tf.estimator.Estimator(
            model_fn,
            model_dir=model_dir,
            config=tf.estimator.RunConfig(session_config=session_config),
        )
        metrics = plain.evaluate(plain_input_fn, steps=1)
        return {
            "seen": seen,
            "w": est.get_variable_value("w"),
            "b": est.get_variable_value("b"),
            "global_step": int(est.get_variable_value("global_step")),
            "eval_loss": float(metrics["loss"]),
            "names": sorted(n for n, _ in tf.train.list_variables(model_dir)),
        }
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


for _key in ("mirrored_two", "one_device", "central_storage", "mirrored_default"):
    for _ctx in (True, False):

        def _estimator_program(tf: Any, key: str = _key, ctx: bool = _ctx) -> dict[str, Any]:
            return _estimator_run(tf, lambda: STRATEGIES[key](tf), ctx)

        PROGRAMS["estimator_" + _key + ("_input_context" if _ctx else "")] = _estimator_program


def _with_tf_config(config: dict[str, Any], fn: Callable[[], Any]) -> Any:
    import json
    import os

    old = os.environ.get("TF_CONFIG")
    os.environ["TF_CONFIG"] = json.dumps(config)
    try:
        return fn()
    finally:
        if old is None:
            del os.environ["TF_CONFIG"]
        else:
            os.environ["TF_CONFIG"] = old


CLUSTER = {
    "ps": ["localhost:2300", "localhost:2301"],
    "worker": ["localhost:2310", "localhost:2311"],
}


@program("parameter_server_cluster_graph")
def _ps_cluster(tf: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for index in (0, 1):
        config = {"cluster": CLUSTER, "task": {"type": "worker", "index": index}}
        with tf.Graph().as_default():
            if index == 0:
                # Given a cluster resolver, the strategy takes the cluster from it.
                s = _with_tf_config(
                    config,
                    lambda: tf.distribute.experimental.ParameterServerStrategy(
                        tf.distribute.cluster_resolver.TFConfigClusterResolver()
                    ),
                )
            else:
                # Without one it is local until configure() names the cluster and task.
                s = tf.distribute.experimental.ParameterServerStrategy()
                s.configure(cluster_spec=CLUSTER, task_type="worker", task_id=1)
            with s.scope():
                gs = tf.train.get_or_create_global_step()
                w = tf.get_variable("w", [3, 2], initializer=tf.ones_initializer())
                b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
                c = tf.Variable(1.0, name="c")

            def step(w: Any = w, b: Any = b, c: Any = c, gs: Any = gs) -> Any:
                x = tf.constant([[1.0, 2.0, 3.0]])
                loss = tf.reduce_sum(tf.matmul(x, w) + b) * c
                opt = tf.train.AdamOptimizer(0.1)
                return opt.minimize(loss, global_step=gs)

            train = s.experimental_run_v2(step)
            proto = s.update_config_proto(tf.ConfigProto())
            local = tf.distribute.experimental.ParameterServerStrategy()
            out[f"worker{index}"] = {
                "local_without_resolver": list(local.extended.parameter_devices),
                "devices": [[v.name, v.device] for v in tf.global_variables()],
                "train_device": train.device,
                "num_replicas": s.num_replicas_in_sync,
                "worker_devices": list(s.extended.worker_devices),
                "parameter_devices": list(s.extended.parameter_devices),
                "between_graph": s.extended.experimental_between_graph,
                "should_checkpoint": s.extended.should_checkpoint,
                "device_filters": list(proto.device_filters),
                "types": sorted({type(v).__name__ for v in tf.global_variables()}),
            }
    return out


@program("multi_worker_mirrored_cluster_graph")
def _mwms_cluster(tf: Any) -> dict[str, Any]:
    cluster = {"worker": CLUSTER["worker"]}
    out: dict[str, Any] = {}
    for index in (0, 1):
        config = {"cluster": cluster, "task": {"type": "worker", "index": index}}
        with tf.Graph().as_default():
            s = _with_tf_config(
                config, lambda: tf.distribute.experimental.MultiWorkerMirroredStrategy()
            )
            with s.scope():
                w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
            out[f"worker{index}"] = {
                "num_replicas": s.num_replicas_in_sync,
                "worker_devices": list(s.extended.worker_devices),
                "between_graph": s.extended.experimental_between_graph,
                "should_checkpoint": s.extended.should_checkpoint,
                "variable": [
                    w.name,
                    type(w).__name__,
                    [v.device for v in s.experimental_local_results(w)],
                ],
            }
    return out


@program("cross_device_ops_errors")
def _cross_device_ops_errors(tf: Any) -> dict[str, Any]:
    def nccl_on_cpus() -> None:
        s = tf.distribute.MirroredStrategy(
            ["/cpu:0", "/cpu:1"], cross_device_ops=tf.distribute.NcclAllReduce()
        )

        def fn() -> Any:
            return tf.distribute.get_replica_context().all_reduce("SUM", tf.constant([1.0, 2.0]))

        r = s.experimental_run_v2(fn)
        with _session(tf) as sess:
            sess.run(s.experimental_local_results(r))

    s = tf.distribute.MirroredStrategy(
        ["/cpu:0", "/cpu:1"], cross_device_ops=tf.distribute.HierarchicalCopyAllReduce(num_packs=2)
    )
    r = s.experimental_run_v2(
        lambda: tf.distribute.get_replica_context().all_reduce("SUM", tf.constant([1.0, 2.0]))
    )
    with _session(tf) as sess:
        hierarchical = sess.run(list(s.experimental_local_results(r)))
    return {
        "nccl_on_cpus": _caught(nccl_on_cpus),
        "nccl_negative_packs": _caught(lambda: tf.distribute.NcclAllReduce(num_packs=-1)),
        "hierarchical_negative_packs": _caught(
            lambda: tf.distribute.HierarchicalCopyAllReduce(num_packs=-1)
        ),
        "hierarchical": np.array(hierarchical),
    }


def _keras_program(key: str) -> None:
    @program("keras_fit_" + key)
    def _p(tf: Any) -> dict[str, Any]:
        tf.set_random_seed(0)
        s = STRATEGIES[key](tf)
        x = np.arange(32, dtype=np.float32).reshape(16, 2) / 10.0
        y = (x @ np.array([[0.5], [-0.25]], np.float32) + 0.1).astype(np.float32)
        with s.scope():
            model = tf.keras.Sequential(
                [tf.keras.layers.Dense(1, input_shape=(2,), kernel_initializer="ones")]
            )
            model.compile(tf.keras.optimizers.SGD(0.1), "mse")
        history = model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False)
        return {
            "weights": [w.name for w in model.weights],
            "loss": np.array(history.history["loss"], dtype=np.float32),
            "kernel": model.get_weights()[0],
            "predict": model.predict(x[:3]),
        }


for _key in ("mirrored_default", "one_device"):
    _keras_program(_key)


@program("metrics_in_replicas")
def _metrics_in_replicas(tf: Any) -> dict[str, Any]:
    s = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])

    def fn() -> Any:
        rid = tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)
        values = tf.constant([1.0, 2.0, 3.0]) * (rid + 1.0)
        mean, mean_update = tf.metrics.mean(values)
        labels = tf.constant([1, 0, 1, 1])
        predictions = tf.cast(tf.constant([1.0, 0.0, 0.0, 1.0]) * (1.0 - rid) + rid, tf.int32)
        acc, acc_update = tf.metrics.accuracy(labels, predictions)
        return mean, mean_update, acc, acc_update

    mean, mean_update, acc, acc_update = s.experimental_run_v2(fn)
    local = tf.local_variables()
    with _session(tf) as sess:
        sess.run(tf.local_variables_initializer())
        sess.run(
            [s.experimental_local_results(mean_update), s.experimental_local_results(acc_update)]
        )
        sess.run(
            [s.experimental_local_results(mean_update), s.experimental_local_results(acc_update)]
        )
        values = sess.run(
            [list(s.experimental_local_results(mean)), list(s.experimental_local_results(acc))]
        )
        copies = sess.run([list(s.experimental_local_results(v)) for v in local])
        with s.scope():
            combined = sess.run([s.extended.read_var(v) for v in local])
    return {
        "types": sorted({type(v).__name__ for v in local}),
        "local": [v.name for v in local],
        "mean": np.array(values[0], dtype=np.float32),
        "accuracy": np.array(values[1], dtype=np.float32),
        "copies": [np.asarray(c, dtype=np.float32) for c in copies],
        "combined": [np.asarray(c, dtype=np.float32) for c in combined],
    }


def _estimator_eval_program(key: str) -> None:
    @program("estimator_eval_distribute_" + key)
    def _p(tf: Any) -> dict[str, Any]:
        import shutil
        import tempfile

        x_np = np.arange(32, dtype=np.float32).reshape(16, 2) / 10.0
        y_np = (x_np @ np.array([[0.5], [-0.25]], np.float32) + 0.1).astype(np.float32)

        def input_fn(input_context: Any = None) -> Any:
            batch = 8 if input_context is None else input_context.get_per_replica_batch_size(8)
            return tf.data.Dataset.from_tensor_slices(({"x": x_np}, y_np)).batch(batch)

        def model_fn(features: Any, labels: Any, mode: str) -> Any:
            w = tf.get_variable("w", [2, 1], initializer=tf.constant_initializer(0.3))
            pred = tf.matmul(features["x"], w)
            loss = tf.losses.mean_squared_error(labels, pred)
            train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
                loss, global_step=tf.train.get_global_step()
            )
            metrics = {"mae": tf.metrics.mean_absolute_error(labels, pred)}
            return tf.estimator.EstimatorSpec(
                mode, loss=loss, train_op=train_op, eval_metric_ops=metrics
            )

        model_dir = tempfile.mkdtemp()
        try:
            session_config = tf.ConfigProto(device_count={"CPU": 2}, allow_soft_placement=True)
            config = tf.estimator.RunConfig(
                model_dir=model_dir,
                eval_distribute=STRATEGIES[key](tf),
                session_config=session_config,
            )
            est = tf.estimator.Estimator(model_fn, config=config)
            est.train(lambda: input_fn().repeat(), steps=3)
            metrics = est.evaluate(input_fn)
            out = {k: float(v) for k, v in sorted(metrics.items())}
            # With steps, a hook counts the batches through the (mirrored) eval step.
            by_steps = est.evaluate(lambda: input_fn().repeat(), steps=3)
            out.update({"steps_" + k: float(v) for k, v in sorted(by_steps.items())})
            return out
        finally:
            shutil.rmtree(model_dir, ignore_errors=True)


for _key in ("mirrored_two", "one_device"):
    _estimator_eval_program(_key)


def _keras_shuffled_program(key: str) -> None:
    @program("keras_fit_arrays_as_dataset_" + key)
    def _p(tf: Any) -> dict[str, Any]:
        """fit on arrays in a strategy's scope runs through TF's numpy dataset: tf.data's
        shuffle (not numpy's), the epochs repeated before batching, ceil(n / batch) steps,
        the loss averaged over steps."""
        tf.set_random_seed(0)
        s = STRATEGIES[key](tf)
        x = np.arange(28, dtype=np.float32).reshape(14, 2) / 10.0
        y = (x @ np.array([[0.5], [-0.25]], np.float32) + 0.1).astype(np.float32)
        with s.scope():
            model = tf.keras.Sequential(
                [tf.keras.layers.Dense(1, input_shape=(2,), kernel_initializer="ones")]
            )
            model.compile(tf.keras.optimizers.SGD(0.1), "mse")
        seen: list[Any] = []
        record = tf.keras.callbacks.LambdaCallback(
            on_train_begin=lambda logs=None: seen.append(
                [record.params.get("steps"), record.params.get("samples")]
            )
        )
        history = model.fit(x, y, batch_size=4, epochs=3, verbose=0, callbacks=[record])
        return {
            "loss": np.array(history.history["loss"], dtype=np.float32),
            "kernel": model.get_weights()[0],
            "params": seen,
        }


# (Under the default MirroredStrategy TF 1.15 builds two more ops at compile and a second
# TensorSliceDataset -> ShuffleDataset when fitting: its shuffle seeds differ from these.)
_keras_shuffled_program("one_device")


@program("numpy_dataset")
def _numpy_dataset(tf: Any) -> dict[str, Any]:
    """experimental_make_numpy_dataset: host variables filled through sliced assignments,
    the dataset sliced from them."""
    s = tf.distribute.MirroredStrategy()
    graph = tf.get_default_graph()
    with s.scope():
        sess = tf.Session()
        start = len(graph.get_operations())
        ds = s.experimental_make_numpy_dataset(
            (np.arange(8.0).reshape(4, 2), np.arange(4)), session=sess
        )
        ops = [[op.name, op.type] for op in graph.get_operations()[start:]]
        kinds = [type(v).__name__ for v in tf.global_variables()]
        it = tf.data.make_initializable_iterator(ds)
        nxt = it.get_next()
        sess.run(it.initializer)
        rows = [sess.run(nxt) for _ in range(4)]
        sess.close()
    return {"ops": ops, "variables": kinds, "rows": rows}


@program("strategy_class_names")
def _strategy_class_names(tf: Any) -> dict[str, Any]:
    d = tf.distribute
    classes = [
        d.MirroredStrategy, d.OneDeviceStrategy, d.Strategy, d.StrategyExtended,
        d.experimental.CentralStorageStrategy, d.experimental.ParameterServerStrategy,
        d.experimental.MultiWorkerMirroredStrategy,
    ]  # fmt: skip
    return {"names": [c.__name__ for c in classes]}
