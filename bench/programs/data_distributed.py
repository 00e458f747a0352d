"""Issue 16: distributed training reading its input with tf.data, against feed_dict.

1 ps (a tf.train.Server process) + 2 worker processes, each with its own server, as in
ps_training.py: an MLP 784-512-10, batch 128, asynchronous SGD under
tf.train.replica_device_setter. It trains twice, on fresh clusters:

  feed_dict   batches of MNIST-sized records prepared in memory, fed each step
  tf.data     each worker reads its shard of 4 TFRecord files (files split by task index)
              on its own task: TFRecordDataset -> map(parse_single_example, decode_raw,
              cast, /255, num_parallel_calls=2) -> shuffle(1000) -> batch(128) -> repeat ->
              prefetch(1), get_next feeding the model

Rows (total steps/s of both workers, median over 1 s windows, as ps_training.py):
  ps training steps/s, feed_dict from memory (2 workers)
  ps training steps/s, tf.data shards (2 workers)

Each row's detail gives the CPU per step of the workers and the ps, and worker 0's busiest
threads' CPU per step: the step's own thread, the transport's, and with tf.data the input
pipeline's thread, so that the pipeline's share of a step is read off a run directly.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common as c
from ps_training import window_rates

BATCH, N_IN, N_HIDDEN, N_OUT = 128, 784, 512, 10
WORKERS = 2
FILES, PER_FILE = 4, 2000
ROW_FEED = "ps training steps/s, feed_dict from memory (2 workers)"
ROW_DATA = "ps training steps/s, tf.data shards (2 workers)"
FEATURES = [
    "train.Server",
    "train.replica_device_setter",
    "data.TFRecordDataset",
    "parse_single_example",
    "decode_raw",
]


def write_files(tf: Any, directory: str) -> list[str]:
    rng = np.random.default_rng(0)
    paths = []
    for k in range(FILES):
        path = os.path.join(directory, f"train-{k}.tfrecord")
        with tf.python_io.TFRecordWriter(path) as w:
            for i in range(PER_FILE):
                image = rng.integers(0, 256, N_IN, dtype=np.uint8).tobytes()
                feature = {
                    "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[image])),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % N_OUT])),
                }
                w.write(
                    tf.train.Example(
                        features=tf.train.Features(feature=feature)
                    ).SerializeToString()
                )
        paths.append(path)
    return paths


def _input(tf: Any, mode: str, index: int, paths: list[str]) -> tuple[Any, Any, dict[Any, Any]]:
    """(images, labels, feeds) of the model's input for one step."""
    if mode == "feed":
        x = tf.placeholder(tf.float32, [BATCH, N_IN], name="x")
        y = tf.placeholder(tf.int32, [BATCH], name="y")
        return x, y, {"x": x, "y": y}
    features = {
        "image": tf.FixedLenFeature([], tf.string),
        "label": tf.FixedLenFeature([], tf.int64),
    }

    def parse(serialized: Any) -> Any:
        f = tf.parse_single_example(serialized, features)
        image = tf.cast(tf.decode_raw(f["image"], tf.uint8), tf.float32) / 255.0
        return tf.reshape(image, [N_IN]), tf.cast(f["label"], tf.int32)

    files = tf.data.Dataset.from_tensor_slices(paths).shard(WORKERS, index)
    ds = files.interleave(tf.data.TFRecordDataset, cycle_length=2)
    ds = ds.map(parse, num_parallel_calls=2).shuffle(1000, seed=index)
    ds = ds.batch(BATCH, drop_remainder=True).repeat().prefetch(1)
    x, y = tf.data.make_one_shot_iterator(ds).get_next()
    return x, y, {}


def run_worker(args: Any) -> None:
    tf = c.import_tf(args.impl)
    cluster = tf.train.ClusterSpec(json.loads(args.cluster))
    server = tf.train.Server(cluster, job_name="worker", task_index=args.index)
    paths = json.loads(args.paths)
    setter = tf.train.replica_device_setter(
        worker_device=f"/job:worker/task:{args.index}", cluster=cluster
    )
    with tf.device(setter):
        global_step = tf.Variable(0, name="global_step", trainable=False)
        x, y, feeds = _input(tf, args.mode, args.index, paths)
        w1 = tf.Variable(tf.random_normal([N_IN, N_HIDDEN], stddev=0.05, seed=1), name="w1")
        b1 = tf.Variable(tf.zeros([N_HIDDEN]), name="b1")
        w2 = tf.Variable(tf.random_normal([N_HIDDEN, N_OUT], stddev=0.05, seed=2), name="w2")
        b2 = tf.Variable(tf.zeros([N_OUT]), name="b2")
        hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
        logits = tf.matmul(hidden, w2) + b2
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
        )
        train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=global_step)
    init = tf.global_variables_initializer()
    uninit = tf.report_uninitialized_variables()
    sess = tf.Session(server.target, config=tf.ConfigProto(operation_timeout_in_ms=120_000))
    if args.index == 0:
        sess.run(init)
    else:
        while len(sess.run(uninit)) > 0:
            time.sleep(0.05)
    rng = np.random.default_rng(args.index)
    batches = [{}]
    if feeds:
        batches = [
            {
                feeds["x"]: rng.integers(0, 256, (BATCH, N_IN)).astype(np.float32) / 255.0,
                feeds["y"]: rng.integers(0, N_OUT, BATCH).astype(np.int32),
            }
            for _ in range(8)
        ]
    loss0 = float(sess.run(loss, batches[0]))
    for i in range(args.warmup):
        sess.run(train_op, batches[i % len(batches)])
    print(f"READY loss {loss0:.4f}", flush=True)
    sys.stdin.readline()  # GO from the coordinator
    threads0 = c.thread_cpu_seconds()
    start = time.monotonic()
    cpu0 = time.process_time()
    ends = []
    i = 0
    while time.monotonic() - start < args.duration:
        sess.run(train_op, batches[i % len(batches)])
        ends.append(time.monotonic())
        i += 1
    cpu = time.process_time() - cpu0
    threads = c.busiest_threads_ms(threads0, c.thread_cpu_seconds(), len(ends))
    profile = ""
    if args.profile_worker:
        step = lambda: sess.run(train_op, batches[0])  # noqa: E731
        profile = c.profile_calls(step, max(10, min(2000, int(3.0 * len(ends) / args.duration))))
    loss1 = float(sess.run(loss, batches[0]))
    out = {
        "start": start,
        "ends": ends,
        "cpu": cpu,
        "threads_ms": threads,
        "loss0": loss0,
        "loss1": loss1,
        "profile": profile,
    }
    print("STEPS " + json.dumps(out), flush=True)
    sess.close()


def spawn_worker(
    args: Any, cluster: dict[str, list[str]], index: int, mode: str, paths: list[str], row: str
) -> subprocess.Popen[str]:
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--impl",
        args.impl,
        "--role",
        "worker",
        "--mode",
        mode,
        "--index",
        str(index),
        "--cluster",
        json.dumps(cluster),
        "--paths",
        json.dumps(paths),
        "--duration",
        str(args.duration),
        "--warmup",
        str(args.warmup),
    ]
    if index == 0 and row in args.profile:
        cmd.append("--profile-worker")
    return subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=c.child_env(args.impl, 1 + WORKERS),
    )


def train(args: Any, mode: str, row: str, paths: list[str]) -> c.Row:
    ports = c.free_ports(1 + WORKERS)
    cluster = {
        "ps": [f"localhost:{ports[0]}"],
        "worker": [f"localhost:{p}" for p in ports[1:]],
    }
    c.progress(f"{mode}: ps on port {ports[0]}, {WORKERS} workers on {ports[1:]}")
    workers: list[subprocess.Popen[str]] = []
    with c.TaskServers(args.impl, cluster) as servers:
        servers.start("ps", 0)
        try:
            workers = [spawn_worker(args, cluster, i, mode, paths, row) for i in range(WORKERS)]
            for i, w in enumerate(workers):
                line = c.wait_for_line(w, "READY", 300, f"worker {i}")
                c.progress(f"worker {i} warmed up ({line})")
            c.progress(f"training for {args.duration:.0f} s")
            ps_cpu0 = servers.cpu_seconds()["ps 0"]
            for w in workers:
                assert w.stdin is not None
                w.stdin.write("GO\n")
                w.stdin.flush()
            reports = [
                json.loads(c.wait_for_line(w, "STEPS", args.duration + 300, f"worker {i}")[6:])
                for i, w in enumerate(workers)
            ]
            ps_cpu = servers.cpu_seconds()["ps 0"] - ps_cpu0
        finally:
            for w in workers:
                if w.poll() is None:
                    w.kill()
                w.wait()
    rates, overall = window_rates(reports, 1.0)
    per_worker = [len(r["ends"]) / args.duration for r in reports]
    steps = sum(len(r["ends"]) for r in reports)
    # CPU time per step: the workers' own (process_time over their timed loops) and the ps's
    # (from GO until both reported), so a change's cost shows however loaded the machine is.
    worker_ms = 1e3 * sum(r["cpu"] for r in reports) / max(1, steps)
    ps_ms = 1e3 * ps_cpu / max(1, steps)
    result = c.rate_row(
        row,
        "steps/s",
        rates,
        detail="per worker "
        + ", ".join(f"{x:.0f}" for x in per_worker)
        + f" steps/s; CPU per step: workers {worker_ms:.2f} ms, ps {ps_ms:.2f} ms"
        + f" (worker 0's busiest threads: {', '.join(map(str, reports[0]['threads_ms']))} ms)"
        + f"; loss {reports[0]['loss0']:.3f} -> {reports[0]['loss1']:.3f}",
    )
    result.extra = {
        "overall": overall,
        "per_worker": per_worker,
        "worker_cpu_ms_per_step": worker_ms,
        "ps_cpu_ms_per_step": ps_ms,
        "worker_threads_ms_per_step": [r["threads_ms"] for r in reports],
    }
    result.profile = reports[0]["profile"]
    c.progress(
        f"  {row}: median {result.median:.1f} over {result.samples} windows; CPU per step: "
        f"workers {worker_ms:.2f} ms, ps {ps_ms:.2f} ms; worker threads "
        + "; ".join(", ".join(map(str, r["threads_ms"])) for r in reports)
    )
    return result


def run_coordinator(args: Any) -> None:
    tf = c.import_tf(args.impl)
    c.require(tf, args.impl, FEATURES, "issue 16")
    directory = tempfile.mkdtemp(prefix="bench-data-dist-")
    try:
        paths = write_files(tf, directory)
        rows = [train(args, "feed", ROW_FEED, paths), train(args, "data", ROW_DATA, paths)]
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    c.emit(args.impl, rows)


def main() -> None:
    p = c.base_parser(__doc__ or "")
    p.add_argument("--role", choices=["coordinator", "worker"], default="coordinator")
    p.add_argument("--mode", choices=["feed", "data"], default="feed")
    p.add_argument("--index", type=int, default=0)
    p.add_argument("--cluster", default="")
    p.add_argument("--paths", default="[]")
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
