"""tf.distribute strategies on real task servers (loopback): ParameterServerStrategy's
workers train one model whose variables live on the ps tasks, and a MirroredStrategy whose
devices are two workers' CPUs trains in-graph exactly as TF 1.15 does on two local devices."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import free_ports
from tf_reference import distribute_cases, reference

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


@pytest.fixture
def servers() -> dict[str, list[str]]:
    ports = free_ports(4)
    cluster = {
        "ps": [f"localhost:{ports[0]}", f"localhost:{ports[1]}"],
        "worker": [f"localhost:{ports[2]}", f"localhost:{ports[3]}"],
    }
    spec = tf.train.ClusterSpec(cluster)
    running = [
        tf.train.Server(spec, job_name=job, task_index=i)
        for job in ("ps", "worker")
        for i in range(2)
    ]
    try:
        yield cluster
    finally:
        for s in running:
            s.stop()


def _ps_worker_graph(cluster: dict[str, list[str]], index: int) -> tuple[object, ...]:
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec(cluster), task_type="worker", task_id=index
    )
    strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
    with strategy.scope():
        gs = tf.train.get_or_create_global_step()
        w = tf.get_variable("w", [2, 1], initializer=tf.constant_initializer(0.5))
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())

    def step(x: object, y: object) -> object:
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        return tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)

    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    y = tf.constant([[1.0], [2.0]])
    train = strategy.experimental_run_v2(step, args=(x, y))
    config = strategy.update_config_proto(tf.ConfigProto())
    return strategy, gs, w, b, train, config


def test_parameter_server_strategy_workers_share_variables_on_the_ps(servers: dict) -> None:
    results = {}
    for index in (0, 1):
        with tf.Graph().as_default():
            _, gs, w, b, train, config = _ps_worker_graph(servers, index)
            assert (w.device, b.device, gs.device) == (
                "/job:ps/task:1",
                "/job:ps/task:0",
                "/job:ps/task:0",
            )
            assert list(config.device_filters) == [f"/job:worker/task:{index}", "/job:ps"]
            with tf.Session(f"grpc://{servers['worker'][index]}", config=config) as sess:
                if index == 0:
                    sess.run(tf.global_variables_initializer())
                for _ in range(3):
                    sess.run(train)
                results[index] = sess.run([gs, w, b])
    # The same SGD run in numpy: six steps, three from each worker, on the shared variables.
    w_np, b_np = np.full((2, 1), 0.5, np.float32), np.zeros(1, np.float32)
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    y = np.array([[1.0], [2.0]], np.float32)
    for _ in range(6):
        err = x @ w_np + b_np - y
        w_np = w_np - 0.1 * (2 * x.T @ err / 2)
        b_np = b_np - 0.1 * (2 * err.sum(0) / 2)
    assert results[0][0] == 3 and results[1][0] == 6
    np.testing.assert_allclose(results[1][1], w_np, rtol=1e-5)
    np.testing.assert_allclose(results[1][2], b_np, rtol=1e-5)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_mirrored_strategy_across_two_tasks_matches_tensorflow(
    servers: dict, optimizer: str
) -> None:
    want = reference.case("distribute", f"train_mirrored_two_{optimizer}")
    devices = ["/job:worker/task:0/cpu:0", "/job:worker/task:1/cpu:0"]
    target = f"grpc://{servers['worker'][0]}"

    class Remote:
        """The recorded program, with its strategy's replicas on two tasks and its
        session on the cluster."""

        def __getattr__(self, name: str) -> object:
            return getattr(tf, name)

        def Session(self, config: object = None) -> object:
            return tf.Session(target)

    remote = Remote()
    with tf.Graph().as_default():
        got = distribute_cases._train(
            remote, lambda: tf.distribute.MirroredStrategy(devices), optimizer
        )
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=2e-5)
    np.testing.assert_allclose(got["w_copies"], want["w_copies"], rtol=2e-5)
    assert got["global_step"] == want["global_step"]
    assert got["global_variables"] == want["global_variables"]


def _mwms_worker(
    cluster: dict[str, list[str]], index: int, steps: int, out: dict[int, object]
) -> None:
    """One worker's program: its own graph and session, as MultiWorkerMirroredStrategy runs."""
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec(cluster), task_type="worker", task_id=index
    )
    x_np = np.arange(16, dtype=np.float32).reshape(8, 2) / 10.0
    y_np = (x_np.sum(1, keepdims=True) * 0.5).astype(np.float32)
    with tf.Graph().as_default():
        # Each worker's own start value: the chief's must win.
        tf.set_random_seed(100 + index)
        strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy(cluster_resolver=resolver)

        def input_fn(ctx: object) -> object:
            ds = tf.data.Dataset.from_tensor_slices((x_np, y_np))
            return ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id).batch(2).repeat()

        with strategy.scope():
            iterator = strategy.make_input_fn_iterator(input_fn)
            gs = tf.train.get_or_create_global_step()
            w = tf.get_variable("w", [2, 1], initializer=tf.random_normal_initializer())

            def step(inputs: object) -> object:
                x, y = inputs
                loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
                train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
                with tf.control_dependencies([train]):
                    return tf.identity(loss)

            loss = strategy.experimental_run_v2(step, args=(iterator.get_next(),))
            total = strategy.reduce(tf.distribute.ReduceOp.SUM, loss)
        config = tf.ConfigProto(device_filters=[f"/job:worker/task:{index}", "/job:worker/task:0"])
        with tf.Session(f"grpc://{cluster['worker'][index]}", config=config) as sess:
            sess.run([tf.global_variables_initializer(), iterator.initializer])
            start = sess.run(w)
            totals = [float(sess.run(total)) for _ in range(steps)]
            out[index] = {
                "num_replicas": strategy.num_replicas_in_sync,
                "start": start,
                "w": sess.run(w),
                "totals": totals,
                "step": int(sess.run(gs)),
            }


def test_multi_worker_mirrored_strategy_keeps_workers_in_step(servers: dict) -> None:
    import threading

    cluster = {"worker": servers["worker"]}
    out: dict[int, object] = {}
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            _mwms_worker(cluster, index, 4, out)
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    assert not errors, errors
    a, b = out[0], out[1]
    assert a["num_replicas"] == b["num_replicas"] == 2
    np.testing.assert_array_equal(a["start"], b["start"])
    np.testing.assert_array_equal(a["w"], b["w"])
    assert a["totals"] == b["totals"] and a["step"] == b["step"] == 4
    # The same training in numpy: worker k reads rows k, k+2, ... two at a time; the
    # replicas' gradients are summed; the reported loss is the sum of the two replicas'.
    x_np = np.arange(16, dtype=np.float32).reshape(8, 2) / 10.0
    y_np = (x_np.sum(1, keepdims=True) * 0.5).astype(np.float32)
    shards = [(x_np[k::2], y_np[k::2]) for k in (0, 1)]
    w = a["start"].astype(np.float64)
    totals = []
    for s in range(4):
        grad = np.zeros_like(w)
        total = 0.0
        for xs, ys in shards:
            x, y = xs[2 * s % 4 : 2 * s % 4 + 2], ys[2 * s % 4 : 2 * s % 4 + 2]
            err = x @ w - y
            total += float(np.mean(err**2))
            grad += 2 * x.T @ err / len(x)
        w = w - 0.1 * grad
        totals.append(total)
    np.testing.assert_allclose(a["totals"], totals, rtol=1e-5)
    np.testing.assert_allclose(a["w"], w, rtol=1e-5)
