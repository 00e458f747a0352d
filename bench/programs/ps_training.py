"""Issue 4: parameter-server training throughput, between-graph replication as `tfcluster train`.

1 ps (a tf.train.Server process) + 2 worker processes; each worker hosts its own server, builds
the graph under tf.train.replica_device_setter and trains an MLP 784-512-10 with batch 128 and
asynchronous SGD (GradientDescentOptimizer) through tf.Session(server.target). The chief
initialises; the other waits until the variables are ready. After warm-up both start together
and train for a fixed time.

Row:
  ps training steps/s (2 workers)   total steps/s of both workers, median over 1 s windows
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as c

BATCH, N_IN, N_HIDDEN, N_OUT = 128, 784, 512, 10
WORKERS = 2
ROW = "ps training steps/s (2 workers)"
FEATURES = [
    "train.Server",
    "train.ClusterSpec",
    "train.replica_device_setter",
    "train.GradientDescentOptimizer",
    "nn.sparse_softmax_cross_entropy_with_logits",
    "report_uninitialized_variables",
]


# ---- a worker process ---------------------------------------------------------------------
def build_model(tf: Any, cluster: Any, index: int) -> dict[str, Any]:
    setter = tf.train.replica_device_setter(
        worker_device=f"/job:worker/task:{index}", cluster=cluster
    )
    with tf.device(setter):
        global_step = tf.Variable(0, name="global_step", trainable=False)
        x = tf.placeholder(tf.float32, [BATCH, N_IN], name="x")
        y = tf.placeholder(tf.int32, [BATCH], name="y")
        w1 = tf.Variable(tf.random_normal([N_IN, N_HIDDEN], stddev=0.05, seed=1), name="w1")
        b1 = tf.Variable(tf.zeros([N_HIDDEN]), name="b1")
        w2 = tf.Variable(tf.random_normal([N_HIDDEN, N_OUT], stddev=0.05, seed=2), name="w2")
        b2 = tf.Variable(tf.zeros([N_OUT]), name="b2")
        hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
        logits = tf.matmul(hidden, w2) + b2
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
        )
        train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=global_step)
    return {
        "x": x,
        "y": y,
        "loss": loss,
        "train_op": train_op,
        "init": tf.global_variables_initializer(),
        "uninit": tf.report_uninitialized_variables(),
    }


def run_worker(args: Any) -> None:
    tf = c.import_tf(args.impl)
    cluster = tf.train.ClusterSpec(json.loads(args.cluster))
    server = tf.train.Server(cluster, job_name="worker", task_index=args.index)
    m = build_model(tf, cluster, args.index)
    sess = tf.Session(server.target, config=tf.ConfigProto(operation_timeout_in_ms=120_000))
    if args.index == 0:
        sess.run(m["init"])
    else:
        while len(sess.run(m["uninit"])) > 0:
            time.sleep(0.05)
    rng = np.random.default_rng(args.index)
    batches = [
        {
            m["x"]: rng.random((BATCH, N_IN), dtype=np.float32),
            m["y"]: rng.integers(0, N_OUT, BATCH).astype(np.int32),
        }
        for _ in range(8)
    ]
    loss0 = float(sess.run(m["loss"], batches[0]))
    for i in range(args.warmup):
        sess.run(m["train_op"], batches[i % len(batches)])
    print(f"READY loss {loss0:.4f}", flush=True)
    sys.stdin.readline()  # GO from the coordinator
    start = time.monotonic()
    ends = []
    i = 0
    while time.monotonic() - start < args.duration:
        sess.run(m["train_op"], batches[i % len(batches)])
        ends.append(time.monotonic())
        i += 1
    profile = ""
    if args.profile_worker:
        step = lambda: sess.run(m["train_op"], batches[0])  # noqa: E731
        profile = c.profile_calls(step, max(10, min(2000, int(3.0 * len(ends) / args.duration))))
    loss1 = float(sess.run(m["loss"], batches[0]))
    out = {"start": start, "ends": ends, "loss0": loss0, "loss1": loss1, "profile": profile}
    print("STEPS " + json.dumps(out), flush=True)
    sess.close()


# ---- the coordinator ----------------------------------------------------------------------
def window_rates(reports: list[dict[str, Any]], width: float) -> tuple[list[float], float]:
    """Total steps/s of all workers in each window of the interval where all of them ran."""
    lo = max(r["start"] for r in reports)
    hi = min(r["ends"][-1] for r in reports if r["ends"])
    ends = sorted(t for r in reports for t in r["ends"] if lo <= t <= hi)
    n = max(1, int((hi - lo) / width))
    width = (hi - lo) / n
    counts = [0] * n
    for t in ends:
        counts[min(n - 1, int((t - lo) / width))] += 1
    return [k / width for k in counts], len(ends) / max(hi - lo, 1e-9)


def spawn_worker(args: Any, cluster: dict[str, list[str]], index: int) -> subprocess.Popen[str]:
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--impl",
        args.impl,
        "--role",
        "worker",
        "--index",
        str(index),
        "--cluster",
        json.dumps(cluster),
        "--duration",
        str(args.duration),
        "--warmup",
        str(args.warmup),
    ]
    if index == 0 and ROW in args.profile:
        cmd.append("--profile-worker")
    return subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=c.child_env(args.impl, 1 + WORKERS),
    )


def run_coordinator(args: Any) -> None:
    tf = c.import_tf(args.impl)
    c.require(tf, args.impl, FEATURES, "issue 4")
    ports = c.free_ports(1 + WORKERS)
    cluster = {
        "ps": [f"localhost:{ports[0]}"],
        "worker": [f"localhost:{p}" for p in ports[1:]],
    }
    c.progress(f"starting ps on port {ports[0]}, {WORKERS} workers on {ports[1:]}")
    workers: list[subprocess.Popen[str]] = []
    with c.TaskServers(args.impl, cluster) as servers:
        servers.start("ps", 0)
        try:
            workers = [spawn_worker(args, cluster, i) for i in range(WORKERS)]
            for i, w in enumerate(workers):
                line = c.wait_for_line(w, "READY", 300, f"worker {i}")
                c.progress(f"worker {i} warmed up ({line})")
            c.progress(f"training for {args.duration:.0f} s")
            for w in workers:
                assert w.stdin is not None
                w.stdin.write("GO\n")
                w.stdin.flush()
            reports = [
                json.loads(c.wait_for_line(w, "STEPS", args.duration + 300, f"worker {i}")[6:])
                for i, w in enumerate(workers)
            ]
        finally:
            for w in workers:
                if w.poll() is None:
                    w.kill()
                w.wait()
    rates, overall = window_rates(reports, 1.0)
    per_worker = [len(r["ends"]) / args.duration for r in reports]
    row = c.rate_row(
        ROW,
        "steps/s",
        rates,
        detail="per worker "
        + ", ".join(f"{x:.0f}" for x in per_worker)
        + f" steps/s; loss {reports[0]['loss0']:.3f} -> {reports[0]['loss1']:.3f}",
    )
    row.extra = {"overall": overall, "per_worker": per_worker}
    row.profile = reports[0]["profile"]
    c.progress(f"  {ROW}: median {row.median:.1f} over {row.samples} windows ({row.detail})")
    c.emit(args.impl, [row])


def main() -> None:
    p = c.base_parser(__doc__ or "")
    p.add_argument("--role", choices=["coordinator", "worker"], default="coordinator")
    p.add_argument("--index", type=int, default=0)
    p.add_argument("--cluster", default="")
    p.add_argument("--duration", type=float, default=None)
    p.add_argument("--warmup", type=int, default=30)
    p.add_argument("--profile-worker", action="store_true")
    args = p.parse_args()
    if args.duration is None:
        args.duration = c.seconds_cap(args)
    if args.role == "worker":
        run_worker(args)
    else:
        run_coordinator(args)


if __name__ == "__main__":
    main()
