"""A between-graph replica trained with tf.train.SyncReplicasOptimizer, the way TF1's
distributed MNIST programs wrote it: variables on the ps through replica_device_setter, Adam
wrapped in SyncReplicasOptimizer(replicas_to_aggregate = number of workers), and either

- `--session=supervisor`: tf.train.Supervisor with the optimizer's local_init_op
  (chief_init_op on the chief), ready_for_local_init_op and recovery_wait_secs=1; the chief runs
  get_init_tokens_op() and starts get_chief_queue_runner() itself; or
- `--session=monitored`: tf.train.MonitoredTrainingSession with
  opt.make_session_run_hook(is_chief) and a StopAtStepHook.

Each worker trains a small linear regression on its own fixed data until the global step it
reads reaches --train_steps, with device_filters naming the ps and itself.

    python -m support.sync_replicas_replica --ps_hosts=h:p --worker_hosts=h:p,h:p \\
        --task_index=0 --target=grpc://h:p --logdir=DIR --train_steps=60 --session=supervisor

With `--start_after=PATH` the replica's first step waits until PATH exists (a test lets the chief
train once the other worker's session is ready: under MonitoredTrainingSession a waiting worker
polls every 30 s, and a chief alone, which may push both gradients of a step, can finish first).

Prints `READY <global step>` when its session is ready, `STEP <local> <global>` after each
step (the global step read in that step) and a last line `RESULT {json}`.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import tfcluster as tf

TRUE_W = np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ps_hosts", required=True)
    parser.add_argument("--worker_hosts", required=True)
    parser.add_argument("--task_index", type=int, required=True)
    parser.add_argument("--target", required=True)
    parser.add_argument("--logdir", required=True)
    parser.add_argument("--train_steps", type=int, default=60)
    parser.add_argument("--session", choices=("supervisor", "monitored"), default="supervisor")
    parser.add_argument("--start_after", default="", help="a file to wait for before stepping")
    args = parser.parse_args()
    tf.logging.set_verbosity(tf.logging.INFO)

    workers = args.worker_hosts.split(",")
    cluster = tf.train.ClusterSpec({"ps": args.ps_hosts.split(","), "worker": workers})
    is_chief = args.task_index == 0
    rng = np.random.RandomState(args.task_index)
    x_data = rng.randn(256, 4).astype(np.float32)
    y_data = x_data @ TRUE_W + 0.25

    setter = tf.train.replica_device_setter(
        worker_device=f"/job:worker/task:{args.task_index}", cluster=cluster
    )
    with tf.device(setter):
        global_step = tf.train.get_or_create_global_step()
        w = tf.get_variable("w", [4, 1], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y), name="loss")
        opt = tf.train.SyncReplicasOptimizer(
            tf.train.AdamOptimizer(0.05),
            replicas_to_aggregate=len(workers),
            total_num_replicas=len(workers),
            name="sync_replicas",
        )
        train_op = opt.minimize(loss, global_step=global_step)

    config = tf.ConfigProto(device_filters=["/job:ps", f"/job:worker/task:{args.task_index}"])
    if args.session == "supervisor":
        sess, stop = _supervisor_session(args, opt, global_step, is_chief, config)
    else:
        sess, stop = _monitored_session(args, opt, is_chief, config)

    start_step = int(sess.run(global_step))
    print(f"READY {start_step}", flush=True)
    while args.start_after and not os.path.exists(args.start_after):
        time.sleep(0.05)
    local_steps = 0
    step = start_step
    while step < args.train_steps and not sess.should_stop():
        batch = rng.randint(0, len(x_data), 32)
        _, step = sess.run([train_op, global_step], {x: x_data[batch], y: y_data[batch]})
        local_steps += 1
        print(f"STEP {local_steps} {step}", flush=True)
    result = {
        "task_index": args.task_index,
        "start_step": start_step,
        "local_steps": local_steps,
        "last_step": int(step),
    }
    stop()
    print("RESULT " + json.dumps(result), flush=True)


def _supervisor_session(
    args: argparse.Namespace, opt: Any, global_step: Any, is_chief: bool, config: Any
) -> tuple[Any, Callable[[], None]]:
    local_init_op = opt.chief_init_op if is_chief else opt.local_step_init_op
    # Made before the Supervisor finalizes the graph.
    chief_queue_runner = opt.get_chief_queue_runner()
    sync_init_op = opt.get_init_tokens_op()
    sv = tf.train.Supervisor(
        is_chief=is_chief,
        logdir=args.logdir,
        init_op=tf.global_variables_initializer(),
        local_init_op=local_init_op,
        ready_for_local_init_op=opt.ready_for_local_init_op,
        recovery_wait_secs=1,
        global_step=global_step,
        save_model_secs=0,
    )
    print("PREPARING" if is_chief else "WAITING", flush=True)
    sess = sv.prepare_or_wait_for_session(args.target, config=config)
    if is_chief:
        sess.run(sync_init_op)
        sv.start_queue_runners(sess, [chief_queue_runner])
    sess.should_stop = sv.should_stop

    def stop() -> None:
        sv.stop()
        sess.close()

    return sess, stop


def _monitored_session(
    args: argparse.Namespace, opt: Any, is_chief: bool, config: Any
) -> tuple[Any, Callable[[], None]]:
    hooks = [
        opt.make_session_run_hook(is_chief),
        tf.train.StopAtStepHook(last_step=args.train_steps),
    ]
    print("PREPARING" if is_chief else "WAITING", flush=True)
    sess = tf.train.MonitoredTrainingSession(
        master=args.target,
        is_chief=is_chief,
        checkpoint_dir=args.logdir if is_chief else None,
        hooks=hooks,
        config=config,
        save_checkpoint_secs=None,
        stop_grace_period_secs=2,
    )
    return sess, sess.close


if __name__ == "__main__":
    main()
