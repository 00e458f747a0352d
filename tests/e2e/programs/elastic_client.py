"""A between-graph client of one worker task, run in a pod while the worker job is scaled:
trains the digits MLP (variables on the ps by ``replica_device_setter`` over ``CLUSTER_SPEC``)
through ``--target`` with MonitoredTrainingSession (no checkpoints: a restore would show as
the global step going back), until ``--control``/stop-<task> exists. Every few steps it
writes the global step it saw to ``--control``/worker-<task>.json, for the test to follow."""

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import tfcluster as tf
from tfcluster.examples import digits_distributed


def _write(path: Path, value: dict) -> None:
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(value))
    partial.replace(path)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--task_index", type=int, required=True)
    parser.add_argument("--control", required=True)
    ours = parser.parse_args()
    control = Path(ours.control)
    stop = control / f"stop-{ours.task_index}"
    report = control / f"worker-{ours.task_index}.json"
    args = digits_distributed.parse_args(["--progress=none", "--learning_rate=0.05"])
    cluster = tf.train.ClusterSpec(json.loads(os.environ["CLUSTER_SPEC"]))
    num_workers = cluster.num_tasks("worker")
    x_train, y_train, _, _ = digits_distributed.load_digits(args.seed)
    x_shard = x_train[ours.task_index :: num_workers]
    y_shard = y_train[ours.task_index :: num_workers]
    device = f"job:worker/task:{ours.task_index}"
    with tf.device(tf.train.replica_device_setter(worker_device=device, cluster=cluster)):
        model = digits_distributed.build_model(args, num_workers)
    starts = digits_distributed.SessionStartsHook(model["global_step"])
    rng = np.random.default_rng(ours.task_index)
    local_steps, global_step, seen = 0, 0, []
    with tf.train.MonitoredTrainingSession(
        master=ours.target,
        is_chief=ours.task_index == 0,
        checkpoint_dir=None,
        hooks=[starts],
        save_checkpoint_steps=0,
        save_summaries_steps=0,
        stop_grace_period_secs=5,
    ) as sess:
        while not stop.exists():
            idx = rng.integers(0, len(x_shard), args.batch_size)
            feed = {model["images"]: x_shard[idx], model["labels"]: y_shard[idx]}
            _, step = sess.run([model["train_op"], model["global_step"]], feed)
            local_steps += 1
            global_step = int(step)
            if local_steps % 10 == 0:
                seen.append(global_step)
                _write(report, {"global_step": global_step, "local_steps": local_steps})
                time.sleep(0.01)  # leave the 2-core node some room for the rolling pods
    result = {
        "task_index": ours.task_index,
        "local_steps": local_steps,
        "global_step": global_step,
        "session_starts": starts.starts,
        "steps_seen": seen,
    }
    print("RESULT " + json.dumps(result), flush=True)
    sys.exit(0)


if __name__ == "__main__":
    main()
