"""One worker of asynchronous between-graph PS training, run the way TF1 users run it: a plain
Python program with its own in-process tf.train.Server for its task, the variables on the ps
tasks through replica_device_setter, and MonitoredTrainingSession (task 0 is the chief) with
device_filters naming the ps tasks and itself; the chief saves checkpoints in --checkpoint_dir
(and restores the latest when it starts again). It trains a small MLP until SIGTERM/SIGINT.

    python -m support.async_soak_worker --ps_hosts=h:p,h:p --worker_hosts=h:p,h:p,h:p \\
        --task_index=1

Prints `READY <global step>` when its session is ready, then every --report_secs
`STEP <local steps> <global step>`, and `STOPPED <local steps>` after a clean stop.
"""

from __future__ import annotations

import argparse
import faulthandler
import signal
import threading
import time
from types import FrameType

import numpy as np
import tfcluster as tf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ps_hosts", required=True)
    parser.add_argument("--worker_hosts", required=True)
    parser.add_argument("--task_index", type=int, required=True)
    parser.add_argument("--report_secs", type=float, default=0.5)
    parser.add_argument("--step_sleep", type=float, default=0.0)
    parser.add_argument("--checkpoint_dir", default=None, help="the chief's checkpoints")
    parser.add_argument("--save_checkpoint_secs", type=float, default=2.0)
    args = parser.parse_args()

    # `kill -USR1` prints every thread's stack: what a hung soak run is waiting for.
    faulthandler.register(signal.SIGUSR1)
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    cluster = tf.train.ClusterSpec(
        {"ps": args.ps_hosts.split(","), "worker": args.worker_hosts.split(",")}
    )
    server = tf.train.Server(cluster, job_name="worker", task_index=args.task_index)
    rng = np.random.RandomState(args.task_index)
    x_data = rng.randn(1024, 16).astype(np.float32)
    y_data = np.tanh(x_data[:, :1] - 0.5 * x_data[:, 1:2]).astype(np.float32)

    setter = tf.train.replica_device_setter(
        worker_device=f"/job:worker/task:{args.task_index}", cluster=cluster
    )
    with tf.device(setter):
        global_step = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None, 16], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        hidden = tf.layers.dense(x, 32, activation=tf.nn.relu, name="hidden")
        out = tf.layers.dense(hidden, 1, name="out")
        loss = tf.reduce_mean(tf.square(out - y))
        train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=global_step)

    config = tf.ConfigProto(device_filters=["/job:ps", f"/job:worker/task:{args.task_index}"])
    is_chief = args.task_index == 0
    # A chief that starts again restores the latest checkpoint (else it would initialise the
    # model again, as TensorFlow's does).
    with tf.train.MonitoredTrainingSession(
        master=server.target,
        is_chief=is_chief,
        checkpoint_dir=args.checkpoint_dir if is_chief else None,
        config=config,
        save_checkpoint_secs=args.save_checkpoint_secs if args.checkpoint_dir else None,
        save_summaries_steps=None,
        save_summaries_secs=None,
        log_step_count_steps=None,
        stop_grace_period_secs=2,
    ) as sess:
        step = int(sess.run(global_step))
        print(f"READY {step}", flush=True)
        local_steps = 0
        last_report = 0.0
        while not stop.is_set() and not sess.should_stop():
            batch = rng.randint(0, len(x_data), 64)
            _, step = sess.run([train_op, global_step], {x: x_data[batch], y: y_data[batch]})
            local_steps += 1
            now = time.monotonic()
            if now - last_report >= args.report_secs:
                print(f"STEP {local_steps} {step}", flush=True)
                last_report = now
            if args.step_sleep:
                time.sleep(args.step_sleep)
    print(f"STOPPED {local_steps}", flush=True)


if __name__ == "__main__":
    main()
