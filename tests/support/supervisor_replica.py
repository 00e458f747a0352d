"""A between-graph replica trained under tf.train.Supervisor, as TF1's distributed tutorials
wrote them: the variables on the ps through replica_device_setter, the chief (task 0)
initialises the model or restores the latest checkpoint in --logdir, the other workers wait
until the chief made the model ready. Each worker trains a linear regression on fixed data
until the global step reaches --train_steps; the chief then saves a checkpoint.

    python -m support.supervisor_replica --ps_hosts=h:p --worker_hosts=h:p,h:p \\
        --task_index=0 --target=grpc://h:p --logdir=DIR --train_steps=200

Prints `READY <global step>` when its session is ready and a last line `RESULT {json}`.
"""

from __future__ import annotations

import argparse
import json

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
    parser.add_argument("--train_steps", type=int, default=200)
    parser.add_argument("--save_model_secs", type=float, default=600)
    args = parser.parse_args()
    tf.logging.set_verbosity(tf.logging.INFO)

    cluster = tf.train.ClusterSpec(
        {"ps": args.ps_hosts.split(","), "worker": args.worker_hosts.split(",")}
    )
    is_chief = args.task_index == 0
    rng = np.random.RandomState(args.task_index)
    x_data = rng.randn(512, 4).astype(np.float32)
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
        # The Supervisor's summary thread runs summaries without feeds; the loss, which needs
        # them, the chief writes itself (summary_computed).
        tf.summary.scalar("w_norm", tf.reduce_sum(tf.square(w)))
        loss_summary = tf.summary.scalar("train_loss", loss, collections=[])
        train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=global_step)

    sv = tf.train.Supervisor(
        is_chief=is_chief,
        logdir=args.logdir,
        global_step=global_step,
        recovery_wait_secs=0.2,
        save_summaries_secs=1,
        save_model_secs=args.save_model_secs,
    )
    print("PREPARING" if is_chief else "WAITING", flush=True)
    sess = sv.prepare_or_wait_for_session(args.target)
    start_step = int(sess.run(global_step))
    print(f"READY {start_step}", flush=True)
    start_values = sess.run([w, b])

    local_steps = 0
    step = start_step
    while step < args.train_steps and not sv.should_stop():
        batch = rng.randint(0, len(x_data), 32)
        feed = {x: x_data[batch], y: y_data[batch]}
        _, step = sess.run([train_op, global_step], feed)
        local_steps += 1
        # From the first step on: under load the other worker may take most of the steps.
        if is_chief and (local_steps == 1 or local_steps % 50 == 0):
            sv.summary_computed(sess, sess.run(loss_summary, feed))
    final_loss = float(sess.run(loss, {x: x_data, y: y_data}))
    result = {
        "task_index": args.task_index,
        "start_step": start_step,
        "start_w": start_values[0].ravel().tolist(),
        "local_steps": local_steps,
        "final_loss": final_loss,
    }
    if is_chief:
        saved = sv.saver.save(sess, sv.save_path, global_step=global_step)
        result["saved"] = saved
        result["saved_step"] = int(sess.run(global_step))
        result["saved_w"] = sess.run(w).ravel().tolist()
    sv.stop()
    sess.close()
    print("RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
