"""What every benchmark program shares: which `tf` to import, timing, results, task servers.

A program runs once per implementation, in its own process:
    python bench/programs/<name>.py --impl tfcluster   (the project's Python)
    python bench/programs/<name>.py --impl tf          (bench/.venv-tf's Python)
It prints progress lines, then one line `BENCH_RESULT <json>` that bench/run.py reads.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

RESULT_PREFIX = "BENCH_RESULT "
PROGRAMS_DIR = os.path.dirname(os.path.abspath(__file__))


# ---- the tf module -------------------------------------------------------------------------
def import_tf(impl: str) -> Any:
    """`import tfcluster as tf`, or TF1's API from the real TensorFlow with eager disabled."""
    if impl == "tfcluster":
        import tfcluster as tf

        return tf
    if impl == "tf":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow.compat.v1 as tf

        tf.disable_eager_execution()
        tf.logging.set_verbosity(tf.logging.ERROR)
        return tf
    raise ValueError(f"unknown --impl {impl!r}: expected 'tfcluster' or 'tf'")


def impl_version(impl: str) -> str:
    if impl == "tfcluster":
        import tfcluster

        return str(getattr(tfcluster, "__version__", "?"))
    import tensorflow

    return str(tensorflow.__version__)


def missing_features(tf: Any, names: Sequence[str]) -> list[str]:
    """The dotted attribute paths (e.g. 'train.Server') that `tf` does not have."""
    missing = []
    for dotted in names:
        obj = tf
        for part in dotted.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                missing.append(dotted)
                break
    return missing


# ---- arguments -----------------------------------------------------------------------------
def base_parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--impl", choices=["tfcluster", "tf"], required=True)
    p.add_argument("--quick", action="store_true", help="fewer samples, shorter runs")
    p.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="time cap for each group of measurements (default 15, 5 with --quick)",
    )
    p.add_argument(
        "--profile",
        default="",
        help="comma-separated row names to run under cProfile after timing (tfcluster side)",
    )
    return p


def seconds_cap(args: argparse.Namespace) -> float:
    if args.seconds is not None:
        return float(args.seconds)
    return 5.0 if args.quick else 15.0


def progress(msg: str) -> None:
    print(msg, flush=True)


# ---- timing --------------------------------------------------------------------------------
def _timed_batch(fn: Callable[[], Any], batch: int) -> float:
    t0 = time.perf_counter()
    for _ in range(batch):
        fn()
    return (time.perf_counter() - t0) / batch


def calibrate_batch(fn: Callable[[], Any], target_s: float = 0.003) -> int:
    """Calls per sample so that one sample lasts about target_s (fast calls are batched)."""
    per_call = _timed_batch(fn, 3)
    return max(1, min(10_000, int(target_s / max(per_call, 1e-9))))


def sample_interleaved(
    fns: dict[str, Callable[[], Any]],
    *,
    warmup: int,
    samples: int,
    max_seconds: float,
    min_samples: int = 5,
    batch_target_s: float = 0.003,
) -> dict[str, list[float]]:
    """Per-call seconds for each fn, sampled in turn so that drift hits every fn alike.

    Each sample is the mean over a batch of calls (batched only when a call is short).
    Sampling stops after `samples` rounds or after max_seconds (with at least min_samples).
    """
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    batches = {name: calibrate_batch(fn, batch_target_s) for name, fn in fns.items()}
    out: dict[str, list[float]] = {name: [] for name in fns}
    start = time.perf_counter()
    for i in range(samples):
        for name, fn in fns.items():
            out[name].append(_timed_batch(fn, batches[name]))
        if i + 1 >= min_samples and time.perf_counter() - start > max_seconds:
            break
    return out


def median(xs: Sequence[float]) -> float:
    s = sorted(xs)
    n = len(s)
    if n == 0:
        return float("nan")
    mid = n // 2
    return s[mid] if n % 2 else 0.5 * (s[mid - 1] + s[mid])


def quartiles(xs: Sequence[float]) -> tuple[float, float]:
    s = sorted(xs)
    if not s:
        return float("nan"), float("nan")
    return s[len(s) // 4], s[(3 * len(s)) // 4]


def profile_calls(fn: Callable[[], Any], calls: int, top: int = 25) -> str:
    """cProfile of `calls` calls of fn: the top functions by own time and by cumulative time."""
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        fn()
    prof.disable()
    buf = io.StringIO()
    stats = pstats.Stats(prof, stream=buf).strip_dirs()
    buf.write(f"# {calls} calls, sorted by own time (tottime)\n")
    stats.sort_stats("tottime").print_stats(top)
    buf.write(f"# {calls} calls, sorted by cumulative time\n")
    stats.sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


# ---- results -------------------------------------------------------------------------------
@dataclass
class Row:
    """One measured figure. kind 'time' is seconds per call (lower is better); 'rate' is a
    throughput in `unit` (higher is better); 'size' an amount of memory (lower is better)."""

    name: str
    kind: str
    unit: str
    median: float
    q1: float
    q3: float
    samples: int
    detail: str = ""
    profile: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def time_row(name: str, xs: Sequence[float], detail: str = "") -> Row:
    q1, q3 = quartiles(xs)
    return Row(name, "time", "s", median(xs), q1, q3, len(xs), detail)


def rate_row(name: str, unit: str, xs: Sequence[float], detail: str = "") -> Row:
    q1, q3 = quartiles(xs)
    return Row(name, "rate", unit, median(xs), q1, q3, len(xs), detail)


def emit(impl: str, rows: Sequence[Row], skipped: str = "", **meta: Any) -> None:
    import numpy

    payload = {
        "impl": impl,
        "version": impl_version(impl) if not skipped else "",
        "numpy": numpy.__version__,
        "python": sys.version.split()[0],
        "skipped": skipped,
        "rows": [asdict(r) for r in rows],
        "meta": meta,
    }
    print(RESULT_PREFIX + json.dumps(payload), flush=True)


def skip(impl: str, why: str) -> None:
    progress(f"skipped: {why}")
    emit(impl, [], skipped=why)
    sys.exit(0)


def require(tf: Any, impl: str, names: Sequence[str], issue: str) -> None:
    """Skips the program (a result, not a failure) when tfcluster lacks a feature it needs."""
    missing = missing_features(tf, names)
    if missing:
        skip(impl, f"{impl} has no {', '.join('tf.' + m for m in missing)} yet ({issue})")


# ---- task servers on loopback --------------------------------------------------------------
def free_ports(n: int) -> list[int]:
    """n distinct free TCP ports on loopback (held open together so they differ)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def child_env(impl: str | None = None, local_tasks: int = 1) -> dict[str, str]:
    """The environment of a benchmark's child process: this one's, as a user's shell would
    give it (no thread settings: each runtime sizes its own pools)."""
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    env["PYTHONUNBUFFERED"] = "1"
    return env


def pin_to(cpu: int | None) -> Callable[[], None] | None:
    """A preexec_fn that pins the child to one CPU (of this process's), or None."""
    if cpu is None:
        return None
    cpus = sorted(os.sched_getaffinity(0))
    chosen = cpus[cpu % len(cpus)]
    return lambda: os.sched_setaffinity(0, {chosen})


def peak_rss_mb(pid: int | None = None) -> float:
    """The peak resident set (VmHWM) of a process (this one by default), in MB."""
    path = f"/proc/{pid or 'self'}/status"
    with open(path) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024 / 1e6
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def thread_cpu_seconds(pid: int | None = None) -> dict[str, float]:
    """User + system CPU time each thread of a process (this one by default) has used so
    far, by thread id (threads that end between the listing and the read are left out)."""
    base = f"/proc/{pid or 'self'}/task"
    out: dict[str, float] = {}
    for tid in os.listdir(base):
        try:
            with open(f"{base}/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[tid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def busiest_threads_ms(
    before: dict[str, float], after: dict[str, float], steps: int, top: int = 4
) -> list[float]:
    """The CPU milliseconds per step of the `top` busiest threads between two
    thread_cpu_seconds snapshots, busiest first (a step's work split by thread: the step's
    own thread, transport threads, an input pipeline's thread)."""
    spent = sorted((after[t] - before.get(t, 0.0) for t in after), reverse=True)
    return [round(1e3 * s / max(1, steps), 3) for s in spent[:top] if s > 0]


def size_row(name: str, mb: float, detail: str = "") -> Row:
    """A memory figure in MB (one sample: lower is better)."""
    return Row(name, "size", "MB", mb, mb, mb, 1, detail)


_LOOPBACK_SENDER = """
import socket, sys
size, port = int(sys.argv[1]), int(sys.argv[2])
buf = bytearray(size)
s = socket.create_connection(("127.0.0.1", port))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
while s.recv(1):
    s.sendall(buf)
"""


def loopback_tcp_gbps(nbytes: int, samples: int, warmup: int = 2) -> list[float]:
    """The machine's loopback TCP throughput: one connection to another process, which
    sends `nbytes` in big sends each time it is asked; GB/s per transfer, as the receiver
    sees it (recv_into a buffer allocated once)."""
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]
    sender = subprocess.Popen([sys.executable, "-c", _LOOPBACK_SENDER, str(nbytes), str(port)])
    try:
        conn, _ = srv.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buf = memoryview(bytearray(nbytes))
        out = []
        for i in range(warmup + samples):
            t0 = time.perf_counter()
            conn.sendall(b"g")
            got = 0
            while got < nbytes:
                n = conn.recv_into(buf[got:])
                if not n:
                    raise RuntimeError("the loopback sender went away")
                got += n
            if i >= warmup:
                out.append(nbytes / (time.perf_counter() - t0) / 1e9)
        conn.close()
        return out
    finally:
        srv.close()
        sender.wait(timeout=10)


class TaskServers:
    """tf.train.Server processes (bench/programs/task_server.py), started and stopped by us.
    With `pin`, each task is pinned to one CPU (task k of the cluster to CPU k mod n)."""

    def __init__(self, impl: str, cluster: dict[str, list[str]], pin: bool = False) -> None:
        self.impl = impl
        self.cluster = cluster
        self.local_tasks = sum(len(tasks) for tasks in cluster.values())
        self.pin = pin
        self.procs: list[subprocess.Popen[str]] = []
        self.names: list[str] = []

    def task_number(self, job: str, index: int) -> int:
        """The task's place in the cluster (jobs sorted by name): its CPU when pinned."""
        jobs = sorted(self.cluster)
        return sum(len(self.cluster[j]) for j in jobs[: jobs.index(job)]) + index

    def cpu_seconds(self) -> dict[str, float]:
        """Each running task's CPU time so far."""
        return {n: cpu_seconds(p.pid) for n, p in zip(self.names, self.procs) if p.poll() is None}

    def peak_rss_mb(self) -> dict[str, float]:
        """Each running task's peak resident set so far, in MB."""
        return {n: peak_rss_mb(p.pid) for n, p in zip(self.names, self.procs) if p.poll() is None}

    def start(self, job: str, index: int, timeout_s: float = 120.0) -> None:
        cmd = [
            sys.executable,
            os.path.join(PROGRAMS_DIR, "task_server.py"),
            "--impl",
            self.impl,
            "--cluster",
            json.dumps(self.cluster),
            "--job",
            job,
            "--index",
            str(index),
        ]
        proc = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=child_env(self.impl, self.local_tasks),
            preexec_fn=pin_to(self.task_number(job, index) if self.pin else None),
        )
        self.procs.append(proc)
        self.names.append(f"{job} {index}")
        wait_for_line(proc, "READY", timeout_s, f"task server /job:{job}/task:{index}")

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs.clear()

    def __enter__(self) -> TaskServers:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def wait_for_line(proc: subprocess.Popen[str], prefix: str, timeout_s: float, what: str) -> str:
    """Reads proc's stdout until a line starting with prefix; fails if it exits or is slow."""
    lines = _line_queue(proc)
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise TimeoutError(
                f"{what} did not print {prefix!r} within {timeout_s:.0f} s"
            ) from None
        if line is None:
            raise RuntimeError(f"{what} exited (rc={proc.wait()}) before printing {prefix!r}")
        if line.startswith(prefix):
            return line.strip()


_queues: dict[int, queue.Queue[str | None]] = {}


def _line_queue(proc: subprocess.Popen[str]) -> queue.Queue[str | None]:
    """One reader thread per child: its stdout lines in a queue, None at end of file."""
    q = _queues.get(proc.pid)
    if q is None:
        q = _queues[proc.pid] = queue.Queue()
        stream = proc.stdout
        assert stream is not None

        def pump() -> None:
            for line in stream:
                q.put(line)
            q.put(None)

        threading.Thread(target=pump, daemon=True).start()
    return q
