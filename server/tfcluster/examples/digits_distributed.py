"""Data-parallel training of an MLP on digits with a ps and workers, the TF1 way.

Between-graph replication: every task runs this same program. A ps task serves the variables
(server.join()); each worker task builds the same graph with tf.train.replica_device_setter
(variables on the ps, the rest on itself) and trains an MLP on scikit-learn's digits with
tf.train.MonitoredTrainingSession. Worker 0 is the chief: it initialises or restores the model,
writes checkpoints and TensorBoard summaries, shows a progress bar, and reports the held-out
accuracy at the end. Every worker prints one `RESULT {...}` JSON line when it is done.

    python -m tfcluster.examples.digits_distributed --ps_hosts=localhost:2222 \\
        --worker_hosts=localhost:2223,localhost:2224 --job_name=worker --task_index=0

(`tfcluster train` starts the whole cluster for you.) Without --ps_hosts/--worker_hosts the
cluster and the task come from TF_CONFIG, as on Kubernetes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

import tfcluster as tf

N_TEST = 297  # digits has 1797 images: 1500 to train on, the rest held out


def load_digits(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x_train, y_train, x_test, y_test): pixels scaled to [0, 1], the same split everywhere."""
    from sklearn.datasets import load_digits as sk_load_digits

    digits = sk_load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    x, y = x[order], y[order]
    return x[N_TEST:], y[N_TEST:], x[:N_TEST], y[:N_TEST]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="An MLP on digits by between-graph replication")
    p.add_argument("--ps_hosts", default="", help="comma-separated host:port of the ps tasks")
    p.add_argument("--worker_hosts", default="", help="comma-separated host:port of the workers")
    p.add_argument("--job_name", default="", choices=["", "ps", "worker"])
    p.add_argument("--task_index", type=int, default=0)
    p.add_argument("--logdir", default="tem/train_logs", help="checkpoints and TensorBoard logs")
    p.add_argument("--last_step", type=int, default=2000, help="global step to stop at")
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--learning_rate", type=float, default=0.2)
    p.add_argument("--hidden_units", type=int, default=128)
    p.add_argument("--save_checkpoint_steps", type=int, default=200)
    p.add_argument("--save_summaries_steps", type=int, default=20)
    p.add_argument("--sync", action="store_true", help="SyncReplicasOptimizer instead of async")
    p.add_argument("--seed", type=int, default=0, help="data split and initialisation seed")
    p.add_argument("--progress", choices=["auto", "bar", "none"], default="auto")
    return p.parse_args(argv)


def cluster_and_task(args: argparse.Namespace) -> tuple[tf.train.ClusterSpec, str, int]:
    if args.ps_hosts or args.worker_hosts:
        ps_hosts = [h for h in args.ps_hosts.split(",") if h]
        worker_hosts = [h for h in args.worker_hosts.split(",") if h]
        if not args.job_name:
            raise SystemExit("--job_name is required with --ps_hosts/--worker_hosts")
        return (
            tf.train.ClusterSpec({"ps": ps_hosts, "worker": worker_hosts}),
            args.job_name,
            args.task_index,
        )
    config = json.loads(os.environ.get("TF_CONFIG", "{}") or "{}")
    if not config.get("cluster"):
        raise SystemExit("give --ps_hosts/--worker_hosts/--job_name/--task_index, or TF_CONFIG")
    task = config.get("task", {})
    return tf.train.ClusterSpec(config["cluster"]), task.get("type", ""), int(task.get("index", 0))


def build_model(args: argparse.Namespace, num_workers: int) -> dict[str, Any]:
    """The graph of one replica (call inside the replica_device_setter scope)."""
    tf.set_random_seed(args.seed)
    # count the number of updates
    global_step = tf.Variable(0, name="global_step", trainable=False)

    # placeholders
    images = tf.placeholder(tf.float32, [None, 64], name="images")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    # neural network layers: 64 -> hidden (ReLU) -> 10
    with tf.name_scope("hidden"):
        w1 = tf.Variable(
            tf.truncated_normal([64, args.hidden_units], stddev=np.sqrt(2.0 / 64)), name="weights"
        )
        b1 = tf.Variable(tf.zeros([args.hidden_units]), name="biases")
        hidden = tf.nn.relu(tf.matmul(images, w1) + b1)
    with tf.name_scope("softmax_linear"):
        w2 = tf.Variable(
            tf.truncated_normal([args.hidden_units, 10], stddev=np.sqrt(2.0 / args.hidden_units)),
            name="weights",
        )
        b2 = tf.Variable(tf.zeros([10]), name="biases")
        logits = tf.matmul(hidden, w2) + b2
    # predictions
    prediction = tf.argmax(logits, 1, name="prediction")
    accuracy = tf.reduce_mean(tf.cast(tf.equal(prediction, labels), tf.float32))
    # loss
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    )
    # train operation
    optimizer: Any = tf.train.GradientDescentOptimizer(args.learning_rate)
    if args.sync:
        optimizer = tf.train.SyncReplicasOptimizer(
            optimizer, replicas_to_aggregate=num_workers, total_num_replicas=num_workers
        )
    train_op = optimizer.minimize(loss, global_step=global_step)

    # create TensorBoard summaries (tags 'loss' and 'accuracy': no other op is named so)
    tf.summary.scalar("loss", loss)
    tf.summary.scalar("accuracy", accuracy)
    tf.summary.histogram("hidden_weights", w1)
    # merge all summaries into a single operation which we can execute in a session
    summary_op = tf.summary.merge_all()
    return {
        "global_step": global_step,
        "images": images,
        "labels": labels,
        "loss": loss,
        "accuracy": accuracy,
        "train_op": train_op,
        "summary_op": summary_op,
        "optimizer": optimizer,
    }


class SessionStartsHook(tf.train.SessionRunHook):
    """Records the global step each time a session starts: more than one start means the
    MonitoredSession recovered (a ps restarted), and the step shows where training resumed."""

    def __init__(self, global_step: Any) -> None:
        self._global_step = global_step
        self.starts: list[int] = []

    def after_create_session(self, session: Any, coord: Any) -> None:
        self.starts.append(int(session.run(self._global_step)))
        print(f"session ready at global step {self.starts[-1]}", file=sys.stderr, flush=True)


class _Progress:
    """A tqdm bar of the global step with step/s and loss (chief only), or nothing."""

    def __init__(self, enabled: bool, last_step: int) -> None:
        self._bar: Any = None
        if enabled:
            from tqdm import tqdm

            self._bar = tqdm(total=last_step, unit="step", dynamic_ncols=True, file=sys.stderr)

    def update(self, global_step: int, loss: float) -> None:
        if self._bar is None:
            return
        self._bar.update(max(0, min(global_step, self._bar.total) - self._bar.n))
        self._bar.set_postfix(loss=f"{loss:.4f}", refresh=False)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def run_worker(server: Any, cluster: Any, task_index: int, args: argparse.Namespace) -> dict:
    num_workers = cluster.num_tasks("worker")
    is_chief = task_index == 0
    x_train, y_train, x_test, y_test = load_digits(args.seed)
    # Each worker reads its own shard of the training set.
    x_shard, y_shard = x_train[task_index::num_workers], y_train[task_index::num_workers]

    # Assigns ops to the local worker by default.
    with tf.device(
        tf.train.replica_device_setter(
            worker_device=f"job:worker/task:{task_index}", cluster=cluster
        )
    ):
        model = build_model(args, num_workers)

    # the StopAtStepHook handles stopping after running given steps
    starts = SessionStartsHook(model["global_step"])
    hooks = [tf.train.StopAtStepHook(last_step=args.last_step), starts]
    if args.sync:
        hooks.append(model["optimizer"].make_session_run_hook(is_chief))

    # session configuration
    config = tf.ConfigProto(allow_soft_placement=True, log_device_placement=False)
    config.gpu_options.allow_growth = True

    progress = _Progress(
        args.progress == "bar" or (args.progress == "auto" and is_chief), args.last_step
    )
    rng = np.random.default_rng(args.seed + 1000 + task_index)
    local_steps = 0
    loss_value = float("nan")
    global_step_value = 0
    start = time.monotonic()
    # start session
    with tf.train.MonitoredTrainingSession(
        config=config,
        master=server.target,
        is_chief=is_chief,
        checkpoint_dir=args.logdir,
        hooks=hooks,
        save_checkpoint_steps=args.save_checkpoint_steps,
        save_summaries_steps=args.save_summaries_steps,
        stop_grace_period_secs=5,
    ) as sess:
        # tf.MonitoredTrainingSession takes care of session starting and stopping
        while not sess.should_stop():
            # read input data and train the model
            idx = rng.integers(0, len(x_shard), args.batch_size)
            feed = {model["images"]: x_shard[idx], model["labels"]: y_shard[idx]}
            _, loss_value, global_step_value = sess.run(
                [model["train_op"], model["loss"], model["global_step"]], feed
            )
            local_steps += 1
            progress.update(int(global_step_value) + 1, float(loss_value))
    progress.close()
    elapsed = time.monotonic() - start

    result: dict[str, Any] = {
        "task_index": task_index,
        "local_steps": local_steps,
        "seconds": round(elapsed, 3),
        "last_loss": float(loss_value),
        "session_starts": starts.starts,
    }
    if is_chief:
        # The trained variables are still on the ps: evaluate them on the held-out images.
        with tf.Session(server.target, config=config) as sess:
            acc, step = sess.run(
                [model["accuracy"], model["global_step"]],
                {model["images"]: x_test, model["labels"]: y_test},
            )
        result.update(
            held_out_accuracy=float(acc),
            global_step=int(step),
            logdir=os.path.abspath(args.logdir),
            latest_checkpoint=tf.train.latest_checkpoint(args.logdir),
        )
        print(
            f"held-out accuracy {acc:.4f} after {int(step)} global steps "
            f"({local_steps} on this worker, {elapsed:.1f}s); checkpoints and TensorBoard logs "
            f"in {os.path.abspath(args.logdir)}",
            flush=True,
        )
    print("RESULT " + json.dumps(result), flush=True)
    return result


def worker(job_name: str, task_index: int, cluster: Any, args: argparse.Namespace) -> None:
    # create server
    server = tf.train.Server(
        server_or_cluster_def=cluster, job_name=job_name, task_index=task_index
    )
    if job_name == "ps":
        print("Start Parameter Server: ", task_index, flush=True)
        server.join()
    elif job_name == "worker":
        run_worker(server, cluster, task_index, args)
        server.stop()
    else:
        raise SystemExit(f"unknown job {job_name!r}: this program has ps and worker tasks")


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    cluster, job_name, task_index = cluster_and_task(args)
    worker(job_name, task_index, cluster, args)


if __name__ == "__main__":
    main()
