"""Issues 4 and 20: parameter-server training throughput, between-graph replication as users
run it: plain processes with no environment settings (each runtime sizes its own thread pools).

1 ps (a tf.train.Server process) + 2 worker processes; each worker hosts its own server, builds
the graph under tf.train.replica_device_setter and trains an MLP 784-512-10 with batch 128 and
asynchronous SGD (GradientDescentOptimizer) through tf.Session(server.target). The chief
initialises; the other waits until the variables are ready. After warm-up both start together
and train for a fixed time.

Rows:
  ps training steps/s (2 workers, plain processes)   total steps/s of both workers, median over
                                                     1 s windows
  ps training steps/s (2 workers, one CPU per task)  the same with each task pinned to one CPU
                                                     (task k to CPU k mod n, with taskset's
                                                     sched_setaffinity)
  peak RSS, ps training: <task>                      VmHWM of each task at the end (plain run)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as c

BATCH, N_IN, N_HIDDEN, N_OUT = 128, 784, 512, 10
WORKERS = 2
ROW = "ps training steps/s (2 workers, plain processes)"
PINNED_ROW = "ps training steps/s (2 workers, one CPU per task)"
FEATURES = [
    "train.Server",
    "train.ClusterSpec",
    "train.replica_device_setter",
    "train.GradientDescentOptimizer",
    "nn.sparse_softmax_cross_entropy_with_logits",
    "report_uninitialized_variables",
]


# ---- a worker process ---------------------------------------------------------------------
def build_model(
    tf: Any, cluster: Any, index: int, hidden_units: int = N_HIDDEN, batch: int = BATCH
) -> dict[str, Any]:
    """The MLP. With more than one ps, w1 is two halves, so that replica_device_setter's
    round robin gives each ps about half of the parameters."""
    setter = tf.train.replica_device_setter(
        worker_device=f"/job:worker/task:{index}", cluster=cluster
    )
    halves = cluster.num_tasks("ps") > 1
    with tf.device(setter):
        global_step = tf.Variable(0, name="global_step", trainable=False)
        x = tf.placeholder(tf.float32, [batch, N_IN], name="x")
        y = tf.placeholder(tf.int32, [batch], name="y")
        if halves:
            half = hidden_units // 2
            w1a = tf.Variable(tf.random_normal([N_IN, half], stddev=0.05, seed=1), name="w1a")
            w1b = tf.Variable(
                tf.random_normal([N_IN, hidden_units - half], stddev=0.05, seed=3), name="w1b"
            )
            pre = tf.concat([tf.matmul(x, w1a), tf.matmul(x, w1b)], 1)
        else:
            w1 = tf.Variable(tf.random_normal([N_IN, hidden_units], stddev=0.05, seed=1), name="w1")
            pre = tf.matmul(x, w1)
        b1 = tf.Variable(tf.zeros([hidden_units]), name="b1")
        w2 = tf.Variable(tf.random_normal([hidden_units, N_OUT], stddev=0.05, seed=2), name="w2")
        b2 = tf.Variable(tf.zeros([N_OUT]), name="b2")
        hidden = tf.nn.relu(pre + b1)
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
    m = build_model(tf, cluster, args.index, args.hidden, args.batch)
    sess = tf.Session(server.target, config=tf.ConfigProto(operation_timeout_in_ms=120_000))
    if args.index == 0:
        sess.run(m["init"])
    else:
        while len(sess.run(m["uninit"])) > 0:
            time.sleep(0.05)
    rng = np.random.default_rng(args.index)
    batches = [
        {
            m["x"]: rng.random((args.batch, N_IN), dtype=np.float32),
            m["y"]: rng.integers(0, N_OUT, args.batch).astype(np.int32),
        }
        for _ in range(8)
    ]
    loss0 = float(sess.run(m["loss"], batches[0]))
    for i in range(args.warmup):
        sess.run(m["train_op"], batches[i % len(batches)])
    print(f"READY loss {loss0:.4f}", flush=True)
    sys.stdin.readline()  # GO from the coordinator
    start = time.monotonic()
    cpu0 = sum(os.times()[:2])
    ends = []
    i = 0
    while time.monotonic() - start < args.duration:
        sess.run(m["train_op"], batches[i % len(batches)])
        ends.append(time.monotonic())
        i += 1
    cpu_ms = (sum(os.times()[:2]) - cpu0) * 1e3 / max(1, len(ends))
    profile = ""
    if args.profile_worker:
        step = lambda: sess.run(m["train_op"], batches[0])  # noqa: E731
        profile = c.profile_calls(step, max(10, min(2000, int(3.0 * len(ends) / args.duration))))
    loss1 = float(sess.run(m["loss"], batches[0]))
    out = {
        "start": start,
        "ends": ends,
        "loss0": loss0,
        "loss1": loss1,
        "profile": profile,
        "peak_rss_mb": c.peak_rss_mb(),
        "cpu_ms_per_step": cpu_ms,
    }
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


@dataclass
class Setup:
    """One training run: its cluster, model and batch, and whether tasks are pinned."""

    workers: int = WORKERS
    ps: int = 1
    hidden: int = N_HIDDEN
    batch: int = BATCH
    pin: bool = False
    profile: bool = False
    window: float = 1.0  # seconds per rate sample

    def model_bytes(self) -> int:
        """float32 bytes of the parameters (global_step aside)."""
        return 4 * (N_IN * self.hidden + self.hidden + self.hidden * N_OUT + N_OUT)


def spawn_worker(
    args: Any, setup: Setup, cluster: dict[str, list[str]], index: int, cpu: int | None
) -> subprocess.Popen[str]:
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
        "--hidden",
        str(setup.hidden),
        "--batch",
        str(setup.batch),
    ]
    if index == 0 and setup.profile:
        cmd.append("--profile-worker")
    return subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=c.child_env(args.impl, setup.ps + setup.workers),
        preexec_fn=c.pin_to(cpu),
    )


def train(args: Any, setup: Setup) -> dict[str, Any]:
    """Starts a fresh cluster, trains, and returns the workers' reports, the window rates
    and every task's peak RSS."""
    ports = c.free_ports(setup.ps + setup.workers)
    cluster = {
        "ps": [f"localhost:{p}" for p in ports[: setup.ps]],
        "worker": [f"localhost:{p}" for p in ports[setup.ps :]],
    }
    how = "pinned, one CPU each" if setup.pin else "plain processes"
    c.progress(f"{setup.ps} ps + {setup.workers} workers ({how}), hidden {setup.hidden}")
    workers: list[subprocess.Popen[str]] = []
    with c.TaskServers(args.impl, cluster, pin=setup.pin) as servers:
        for i in range(setup.ps):
            servers.start("ps", i)
        try:
            workers = [
                spawn_worker(
                    args,
                    setup,
                    cluster,
                    i,
                    servers.task_number("worker", i) if setup.pin else None,
                )
                for i in range(setup.workers)
            ]
            for i, w in enumerate(workers):
                line = c.wait_for_line(w, "READY", 300, f"worker {i}")
                c.progress(f"worker {i} warmed up ({line})")
            c.progress(f"training for {args.duration:.0f} s")
            ps_cpu = servers.cpu_seconds()
            for w in workers:
                assert w.stdin is not None
                w.stdin.write("GO\n")
                w.stdin.flush()
            reports = [
                json.loads(c.wait_for_line(w, "STEPS", args.duration + 300, f"worker {i}")[6:])
                for i, w in enumerate(workers)
            ]
            peaks = servers.peak_rss_mb()
            ps_cpu = {n: t - ps_cpu[n] for n, t in servers.cpu_seconds().items()}
        finally:
            for w in workers:
                if w.poll() is None:
                    w.kill()
                w.wait()
    for i, r in enumerate(reports):
        peaks[f"worker {i}"] = r["peak_rss_mb"]
    rates, overall = window_rates(reports, setup.window)
    per_worker = [len(r["ends"]) / args.duration for r in reports]
    steps = max(1, sum(len(r["ends"]) for r in reports))
    return {
        "ps_cpu_ms_per_step": sum(ps_cpu.values()) * 1e3 / steps,
        "reports": reports,
        "rates": rates,
        "overall": overall,
        "per_worker": per_worker,
        "peaks": peaks,
    }


def training_row(name: str, run: dict[str, Any]) -> c.Row:
    reports = run["reports"]
    row = c.rate_row(
        name,
        "steps/s",
        run["rates"],
        detail="per worker "
        + ", ".join(f"{x:.0f}" for x in run["per_worker"])
        + " steps/s; worker CPU "
        + ", ".join(f"{r['cpu_ms_per_step']:.1f}" for r in reports)
        + f" ms/step, ps CPU {run['ps_cpu_ms_per_step']:.1f} ms/step"
        + f"; loss {reports[0]['loss0']:.3f} -> {reports[0]['loss1']:.3f}",
    )
    row.extra = {"overall": run["overall"], "per_worker": run["per_worker"]}
    row.profile = reports[0]["profile"]
    c.progress(f"  {name}: median {row.median:.1f} over {row.samples} windows ({row.detail})")
    return row


def run_coordinator(args: Any) -> None:
    tf = c.import_tf(args.impl)
    c.require(tf, args.impl, FEATURES, "issue 4")
    plain = train(args, Setup(profile=ROW in args.profile))
    pinned = train(args, Setup(pin=True, profile=PINNED_ROW in args.profile))
    rows = [training_row(ROW, plain), training_row(PINNED_ROW, pinned)]
    for who, mb in plain["peaks"].items():
        rows.append(c.size_row(f"peak RSS, ps training: {who}", mb))
    c.emit(args.impl, rows)


def main() -> None:
    p = c.base_parser(__doc__ or "")
    p.add_argument("--role", choices=["coordinator", "worker"], default="coordinator")
    p.add_argument("--index", type=int, default=0)
    p.add_argument("--cluster", default="")
    p.add_argument("--duration", type=float, default=None)
    p.add_argument("--warmup", type=int, default=30)
    p.add_argument("--profile-worker", action="store_true")
    p.add_argument("--hidden", type=int, default=N_HIDDEN)
    p.add_argument("--batch", type=int, default=BATCH)
    args = p.parse_args()
    if args.duration is None:
        args.duration = c.seconds_cap(args)
    if args.role == "worker":
        run_worker(args)
    else:
        run_coordinator(args)


if __name__ == "__main__":
    main()
