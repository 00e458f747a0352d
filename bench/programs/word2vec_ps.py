"""Issue 17: word2vec-style skip-gram on parameter servers, embeddings sharded over 2 ps tasks.

2 ps (tf.train.Server processes) + 2 worker processes, each worker with its own server, as
users start them. Each worker builds word2vec_basic's model under replica_device_setter, with
both tables sharded by tf.fixed_size_partitioner(2) (so one half of each on each ps): a
[1M, 128] float32 embedding (512 MB) and nce weights of the same size, nce biases [1M];
nce_loss with 64 log-uniform samples, batch 128 of skip-gram pairs (skip_window 1, num_skips
2) from a synthetic corpus whose word frequencies follow Zipf's law (ids sorted by
frequency, as word2vec numbers its vocabulary), GradientDescentOptimizer(1.0), asynchronous.

Rows:
  word2vec steps/s (2 ps, 2 workers)   total steps/s of both workers, median over 1 s windows
  word2vec bytes on the wire per step  bytes all four processes received from one another on
                                       TCP during the timed window (the kernel's per-socket
                                       bytes_received, from `ss`), over the steps both did
  word2vec rows touched per step       the bytes of the embedding rows a step reads and
                                       writes: each looked-up row (128 of the embedding, 128
                                       labels + 64 samples of nce weights and biases) once
                                       forward and once as its gradient
The first two rows run on both sides; the third is the baseline of the second (target 1.2x).
tfcluster's own count (its tasks' tfcluster_worker_recv_tensor_bytes_total: tensor payloads
only) and the distinct rows a step touches go in the rows' details; so does each process's
CPU time per step (user + system from /proc over the timed window, every thread), and their
sum: on a machine with fewer cores than processes that sum decides the steps/s.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as c

VOCAB, DIM, BATCH, NUM_SAMPLED = 1_000_000, 128, 128, 64
SKIP_WINDOW, NUM_SKIPS = 1, 2
WORKERS, PS = 2, 2
ROW_STEPS = "word2vec steps/s (2 ps, 2 workers)"
ROW_BYTES = "word2vec bytes on the wire per step"
ROW_TOUCHED = "word2vec rows touched per step"
FEATURES = [
    "train.Server",
    "train.replica_device_setter",
    "fixed_size_partitioner",
    "nn.embedding_lookup",
    "nn.nce_loss",
    "get_variable",
]


# ---- data ---------------------------------------------------------------------------------
def corpus(seed: int, words: int) -> np.ndarray:
    """Word ids drawn with P(k) proportional to 1 / (k + 1) (Zipf's law)."""
    weights = 1.0 / np.arange(1, VOCAB + 1, dtype=np.float64)
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    u = np.random.default_rng(seed).random(words)
    return np.minimum(np.searchsorted(cdf, u), VOCAB - 1).astype(np.int32)


def skipgram_batches(words: np.ndarray, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """word2vec_basic's batches: each center word twice, with the word before and after."""
    centers_per_batch = BATCH // NUM_SKIPS
    out = []
    for b in range(n):
        pos = SKIP_WINDOW + b * centers_per_batch + np.arange(centers_per_batch)
        inputs = np.repeat(words[pos], NUM_SKIPS)
        labels = np.stack([words[pos - 1], words[pos + 1]], axis=1).reshape(-1, 1)
        out.append((inputs, labels.astype(np.int32)))
    return out


# ---- a worker process ---------------------------------------------------------------------
def build_model(tf: Any, cluster: Any, index: int) -> dict[str, Any]:
    setter = tf.train.replica_device_setter(
        worker_device=f"/job:worker/task:{index}", cluster=cluster
    )
    with tf.device(setter):
        global_step = tf.train.get_or_create_global_step()
        train_inputs = tf.placeholder(tf.int32, shape=[BATCH], name="train_inputs")
        train_labels = tf.placeholder(tf.int32, shape=[BATCH, 1], name="train_labels")
        shards = tf.fixed_size_partitioner(PS)
        embeddings = tf.get_variable(
            "embeddings",
            [VOCAB, DIM],
            initializer=tf.random_uniform_initializer(-1.0, 1.0),
            partitioner=shards,
        )
        nce_weights = tf.get_variable(
            "nce_weights",
            [VOCAB, DIM],
            initializer=tf.truncated_normal_initializer(stddev=1.0 / DIM**0.5),
            partitioner=shards,
        )
        nce_biases = tf.get_variable("nce_biases", [VOCAB], initializer=tf.zeros_initializer())
        embed = tf.nn.embedding_lookup(embeddings, train_inputs)
        loss = tf.reduce_mean(
            tf.nn.nce_loss(
                weights=nce_weights,
                biases=nce_biases,
                labels=train_labels,
                inputs=embed,
                num_sampled=NUM_SAMPLED,
                num_classes=VOCAB,
            )
        )
        train_op = tf.train.GradientDescentOptimizer(1.0).minimize(loss, global_step=global_step)
    sampled = tf.get_default_graph().get_tensor_by_name("nce_loss/LogUniformCandidateSampler:0")
    return {
        "inputs": train_inputs,
        "labels": train_labels,
        "loss": loss,
        "train_op": train_op,
        "sampled": sampled,
        "init": tf.global_variables_initializer(),
        "uninit": tf.report_uninitialized_variables(),
    }


def distinct_rows(batches: list, sampled: list[np.ndarray]) -> float:
    """Mean bytes of the distinct rows a step reads and writes (each once per direction)."""
    per_step = []
    for (inputs, labels), s in zip(batches, sampled):
        emb = np.unique(inputs).size
        nce = np.unique(np.concatenate([labels.reshape(-1), s])).size
        per_step.append(2 * (emb * DIM * 4 + nce * (DIM * 4 + 4)))
    return float(np.mean(per_step))


def run_worker(args: Any) -> None:
    tf = c.import_tf(args.impl)
    cluster = tf.train.ClusterSpec(json.loads(args.cluster))
    server = tf.train.Server(cluster, job_name="worker", task_index=args.index)
    m = build_model(tf, cluster, args.index)
    sess = tf.Session(server.target, config=tf.ConfigProto(operation_timeout_in_ms=600_000))
    if args.index == 0:
        sess.run(m["init"])
    else:
        while len(sess.run(m["uninit"])) > 0:
            time.sleep(0.2)
    words = corpus(100 + args.index, BATCH * 400)
    data = skipgram_batches(words, 256)
    feeds = [{m["inputs"]: x, m["labels"]: y} for x, y in data]
    loss0 = float(np.mean([sess.run(m["loss"], f) for f in feeds[:8]]))
    for i in range(args.warmup):
        sess.run(m["train_op"], feeds[i % len(feeds)])
    print(f"READY loss {loss0:.4f}", flush=True)
    sys.stdin.readline()  # GO from the coordinator
    start = time.monotonic()
    ends = []
    i = 0
    while time.monotonic() - start < args.duration:
        sess.run(m["train_op"], feeds[i % len(feeds)])
        ends.append(time.monotonic())
        i += 1
    print("DONE " + json.dumps({"start": start, "ends": ends}), flush=True)
    sys.stdin.readline()  # the coordinator has read the counters
    profile = ""
    if args.profile_worker:
        step = lambda: sess.run(m["train_op"], feeds[0])  # noqa: E731
        profile = c.profile_calls(step, max(10, min(1000, int(3.0 * len(ends) / args.duration))))
    sampled = [sess.run([m["train_op"], m["sampled"]], f)[1] for f in feeds[:50]]
    loss1 = float(np.mean([sess.run(m["loss"], f) for f in feeds[:8]]))
    out = {
        "loss0": loss0,
        "loss1": loss1,
        "distinct_rows_bytes": distinct_rows(data[:50], sampled),
        "profile": profile,
    }
    print("STEPS " + json.dumps(out), flush=True)
    sess.close()


# ---- bytes on the wire ---------------------------------------------------------------------
_SS_SOCKET = re.compile(r"(\S+):(\d+)\s+(\S+):(\d+)\s+users:\(\(\"[^\"]*\",pid=(\d+)")
_SS_RECEIVED = re.compile(r"bytes_received:(\d+)")


def _address(host: str) -> str:
    """One spelling per address: an IPv4 peer of a dual-stack listener is [::ffff:a.b.c.d]
    on the listener's side and a.b.c.d on the connecting side."""
    host = host.strip("[]")
    return host.removeprefix("::ffff:")


def socket_bytes(pids: set[int]) -> int:
    """Bytes the processes `pids` have received from one another over TCP, summed over their
    open sockets (each byte is received by exactly one socket; sockets between two ends of one
    process, such as a client of its own server, are left out)."""
    out = subprocess.run(["ss", "-tinpH"], capture_output=True, text=True, check=True).stdout
    sockets = []
    lines = out.splitlines()
    for head, detail in itertools.pairwise(lines):
        found = _SS_SOCKET.search(head)
        if not found:
            continue
        local = (_address(found.group(1)), found.group(2))
        peer = (_address(found.group(3)), found.group(4))
        received = _SS_RECEIVED.search(detail)
        sockets.append(
            (local, peer, int(found.group(5)), int(received.group(1)) if received else 0)
        )
    owner = {local: pid for local, _, pid, _ in sockets}
    return sum(
        n
        for _, peer, pid, n in sockets
        if pid in pids and owner.get(peer) in pids and owner.get(peer) != pid
    )


def tensor_bytes(metrics_ports: list[int]) -> float:
    """tfcluster's own count: tensors its tasks sent to other tasks."""
    total = 0.0
    for port in metrics_ports:
        with urllib.request.urlopen(f"http://localhost:{port}/metrics", timeout=10) as r:
            for line in r.read().decode().splitlines():
                if line.startswith("tfcluster_worker_recv_tensor_bytes_total"):
                    total += float(line.rsplit(" ", 1)[1])
    return total


# ---- the coordinator ----------------------------------------------------------------------
def window_rates(reports: list[dict[str, Any]], width: float) -> list[float]:
    lo = max(r["start"] for r in reports)
    hi = min(r["ends"][-1] for r in reports if r["ends"])
    ends = sorted(t for r in reports for t in r["ends"] if lo <= t <= hi)
    n = max(1, int((hi - lo) / width))
    width = (hi - lo) / n
    counts = [0] * n
    for t in ends:
        counts[min(n - 1, int((t - lo) / width))] += 1
    return [k / width for k in counts]


def spawn_worker(
    args: Any, cluster: dict[str, list[str]], index: int, env: dict[str, str]
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
    ]
    if index == 0 and ROW_STEPS in args.profile:
        cmd.append("--profile-worker")
    return subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )


def tell(procs: list[subprocess.Popen[str]], word: str) -> None:
    for p in procs:
        assert p.stdin is not None
        p.stdin.write(word + "\n")
        p.stdin.flush()


def run_coordinator(args: Any) -> None:
    tf = c.import_tf(args.impl)
    c.require(tf, args.impl, FEATURES, "issue 17")
    ports = c.free_ports(2 * (PS + WORKERS))
    task_ports, metrics_ports = ports[: PS + WORKERS], ports[PS + WORKERS :]
    cluster = {
        "ps": [f"localhost:{p}" for p in task_ports[:PS]],
        "worker": [f"localhost:{p}" for p in task_ports[PS:]],
    }
    c.progress(f"starting {PS} ps on {task_ports[:PS]}, {WORKERS} workers on {task_ports[PS:]}")
    workers: list[subprocess.Popen[str]] = []
    with c.TaskServers(args.impl, cluster) as servers:
        for i in range(PS):
            if args.impl == "tfcluster":  # the tasks' own byte counters, read over HTTP
                os.environ["TFCLUSTER_METRICS_PORT"] = str(metrics_ports[i])
            servers.start("ps", i, timeout_s=300)
        try:
            for i in range(WORKERS):
                env = c.child_env(args.impl, PS + WORKERS)
                if args.impl == "tfcluster":
                    env["TFCLUSTER_METRICS_PORT"] = str(metrics_ports[PS + i])
                workers.append(spawn_worker(args, cluster, i, env))
            os.environ.pop("TFCLUSTER_METRICS_PORT", None)
            for i, w in enumerate(workers):
                line = c.wait_for_line(w, "READY", 900, f"worker {i}")
                c.progress(f"worker {i} warmed up ({line})")
            pids = {p.pid for p in servers.procs} | {w.pid for w in workers}
            counted = args.impl == "tfcluster"
            named = dict(zip(servers.names, servers.procs))
            named.update({f"worker {i}": w for i, w in enumerate(workers)})
            cpu0 = {n: c.cpu_seconds(p.pid) for n, p in named.items()}
            wire0 = socket_bytes(pids)
            tensors0 = tensor_bytes(metrics_ports) if counted else 0.0
            c.progress(f"training for {args.duration:.0f} s")
            tell(workers, "GO")
            done = [
                json.loads(c.wait_for_line(w, "DONE", args.duration + 300, f"worker {i}")[5:])
                for i, w in enumerate(workers)
            ]
            cpu1 = {n: c.cpu_seconds(p.pid) for n, p in named.items()}
            wire1 = socket_bytes(pids)
            tensors1 = tensor_bytes(metrics_ports) if counted else 0.0
            tell(workers, "MORE")
            reports = [
                json.loads(c.wait_for_line(w, "STEPS", 900, f"worker {i}")[6:])
                for i, w in enumerate(workers)
            ]
        finally:
            for w in workers:
                if w.poll() is None:
                    w.kill()
                w.wait()
    rates = window_rates(done, 1.0)
    steps = sum(len(d["ends"]) for d in done)
    per_worker = [len(d["ends"]) / args.duration for d in done]
    wire = (wire1 - wire0) / steps
    cpu = {n: (cpu1[n] - cpu0[n]) / steps * 1e3 for n in cpu0}
    cpu_detail = (
        "CPU ms/step "
        + ", ".join(f"{n} {ms:.2f}" for n, ms in cpu.items())
        + f", all {sum(cpu.values()):.2f}"
    )
    touched = 2 * (BATCH * DIM * 4 + (BATCH + NUM_SAMPLED) * (DIM * 4 + 4))
    distinct = float(np.mean([r["distinct_rows_bytes"] for r in reports]))
    row = c.rate_row(
        ROW_STEPS,
        "steps/s",
        rates,
        detail="per worker "
        + ", ".join(f"{x:.0f}" for x in per_worker)
        + f" steps/s; loss {reports[0]['loss0']:.2f} -> {reports[0]['loss1']:.2f}; "
        + cpu_detail,
    )
    row.profile = reports[0]["profile"]
    detail = f"{steps} steps; distinct rows touched {distinct / 1e3:.0f} kB/step"
    if counted:
        detail += (
            f"; tensor payloads (task metrics) {(tensors1 - tensors0) / steps / 1e3:.1f} kB/step"
        )
    bytes_row = c.Row(ROW_BYTES, "size", "B", wire, wire, wire, 1, detail)
    touched_row = c.Row(
        ROW_TOUCHED, "size", "B", touched, touched, touched, 1, "128 + 192 rows, both ways"
    )
    c.progress(f"  {ROW_STEPS}: median {row.median:.1f} over {row.samples} windows ({row.detail})")
    c.progress(
        f"  {ROW_BYTES}: {wire / 1e3:.1f} kB ({detail}); rows touched {touched / 1e3:.1f} kB"
    )
    c.emit(args.impl, [row, bytes_row, touched_row])


def main() -> None:
    p = c.base_parser(__doc__ or "")
    p.add_argument("--role", choices=["coordinator", "worker"], default="coordinator")
    p.add_argument("--index", type=int, default=0)
    p.add_argument("--cluster", default="")
    p.add_argument("--duration", type=float, default=None)
    p.add_argument("--warmup", type=int, default=20)
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
