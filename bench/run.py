"""tfcluster against the real TensorFlow (tensorflow-cpu, tf.compat.v1), side by side.

    python bench/run.py            # everything, a few minutes; writes bench/RESULTS.md
    python bench/run.py --quick    # fewer samples, about a minute

Each program in bench/programs/ runs twice in separate processes: with the project's Python
(`import tfcluster as tf`) and with bench/.venv-tf's Python (`import tensorflow.compat.v1 as
tf` with eager disabled). The virtualenv is made on first use and reused after.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shlex
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
PROGRAMS_DIR = os.path.join(BENCH_DIR, "programs")
VENV_DIR = os.path.join(BENCH_DIR, ".venv-tf")
TF_VERSION = "2.21.0"  # newest tensorflow-cpu with Python 3.11 wheels when this was written
TF_REQUIREMENTS = [
    [f"tensorflow-cpu=={TF_VERSION}", "numpy"],
    [f"tensorflow=={TF_VERSION}", "numpy"],
]
# The bench's own tools, installed into the same virtualenv: plots of the scaling curves.
BENCH_REQUIREMENTS = ["matplotlib>=3.8"]
SCALING_PLOT = os.path.join(BENCH_DIR, "scaling.png")
RESULT_PREFIX = "BENCH_RESULT "


@dataclass(frozen=True)
class Bench:
    name: str
    program: str
    issue: str
    what: str
    # Its TF side needs TensorFlow 1.x (tf.keras in graph mode): run with --tf1-python if given.
    needs_tf1: bool = False


BENCHES = [
    Bench("local_session", "local_session.py", "issue 2", "local Session: step overhead, matmul"),
    Bench("cluster_session", "cluster_session.py", "issue 3", "2-task cluster: steps, 64 MiB"),
    Bench("ps_training", "ps_training.py", "issues 4, 20", "1 ps + 2 workers async SGD MLP"),
    Bench("ps_scaling", "ps_scaling.py", "issue 20", "ps training: 1-4 workers, 1-128 MB models"),
    Bench("image_preprocessing", "image_preprocessing.py", "issue 16", "tf.image decode/resize"),
    Bench("cnn_training", "cnn_training.py", "issue 15", "tf.layers conv net SGD step"),
    Bench("lstm_training", "lstm_training.py", "issue 17", "LSTM h256 t50 b64 training step"),
    Bench("dqn_conv", "dqn_conv.py", "issue 15", "DQN Q-network: act (batch 1), train step (32)"),
    Bench("data_pipeline", "data_pipeline.py", "issue 16", "tf.data: TFRecord, parse, map"),
    Bench("data_distributed", "data_distributed.py", "issue 16", "tf.data shards vs feed_dict"),
    Bench("queue_input", "queue_input.py", "issue 16", "TFRecord reader -> shuffle_batch queues"),
    Bench("word2vec_ps", "word2vec_ps.py", "issue 17", "skip-gram, 1M x 128 over 2 ps, 2 workers"),
    Bench("tls_transport", "tls_transport.py", "issue 23", "mutual TLS against plain"),
    Bench(
        "keras_small",
        "keras_small.py",
        "issue 17",
        "tf.keras fit: small MLP (batch 32) and LSTM (batch 128)",
        needs_tf1=True,
    ),
]


@dataclass(frozen=True)
class Target:
    """tfcluster's figure against a baseline: 'tf' (TensorFlow's figure for the row), or
    'numpy' / 'row' (another row of tfcluster's own run, NUMPY_BASELINE / ROW_BASELINE):
    ratio <= or >= factor."""

    baseline: str
    op: str
    factor: float
    text: str

    def met(self, ratio: float) -> bool:
        return ratio <= self.factor if self.op == "<=" else ratio >= self.factor


TARGETS = {
    "step: fetch a+b (constants)": Target("tf", "<=", 0.5, "time <= 0.5x TF"),
    "step: feed [4] placeholder": Target("tf", "<=", 0.5, "time <= 0.5x TF"),
    "matmul 1024 (variables)": Target("numpy", "<=", 1.05, "time <= 1.05x numpy"),
    "matmul 1024 (feeds)": Target("numpy", "<=", 1.05, "time <= 1.05x numpy"),
    "4 independent 512x512 matmul chains (inter-op)": Target("tf", "<=", 1.0, "time <= 1x TF"),
    "remote step: op on own task": Target("tf", "<=", 0.25, "time <= 0.25x TF"),
    "remote step: op on other task": Target("tf", "<=", 0.25, "time <= 0.25x TF"),
    "fetch 64 MiB from other task": Target("row", ">=", 0.8, "GB/s >= 0.8x loopback TCP"),
    "feed 64 MiB to other task": Target("row", ">=", 0.8, "GB/s >= 0.8x loopback TCP"),
    "ps training steps/s (2 workers, plain processes)": Target(
        "tf", ">=", 1.2, "steps/s >= 1.2x TF"
    ),
    "ps training steps/s (2 workers, one CPU per task)": Target(
        "tf", ">=", 1.0, "steps/s >= 1x TF"
    ),
    "decode_jpeg 375x500": Target("tf", "<=", 1.0, "time <= 1x TF"),
    "resize_bilinear 16x224": Target("tf", "<=", 1.0, "time <= 1x TF"),
    "inception-style per image": Target("tf", "<=", 1.0, "time <= 1x TF"),
    "conv net train step (batch 128)": Target("tf", "<=", 1.0, "time <= 1x TF"),
    "lstm train step (h256 t50 b64)": Target("tf", "<=", 1.0, "time <= 1x TF"),
    "keras MLP fit, steps/s": Target("tf", ">=", 1.0, "steps/s >= 1x TF"),
    "keras LSTM fit, steps/s": Target("tf", ">=", 1.0, "steps/s >= 1x TF"),
    **{
        f"{row} ({unit})": Target("tf", ">=", 1.0, f"{unit} >= 1x TF")
        for row in (
            "tfrecord 1KB read+shuffle+batch+parse_example",
            "tfrecord 100KB read+shuffle+batch+parse_example",
        )
        for unit in ("records/s", "MB/s")
    },
    "map num_parallel_calls=2 (parse_single_example) (records/s)": Target(
        "tf", ">=", 1.0, "records/s >= 1x TF"
    ),
    "map num_parallel_calls=2 (parse + random noise) (records/s)": Target(
        "tf", ">=", 1.0, "records/s >= 1x TF"
    ),
    "ps training steps/s, feed_dict from memory (2 workers)": Target(
        "tf", ">=", 1.0, "steps/s >= 1x TF"
    ),
    "ps training steps/s, tf.data shards (2 workers)": Target(
        "row", ">=", 1.0, "steps/s >= feed_dict's"
    ),
    "queue shuffle_batch records/s": Target("tf", ">=", 1.0, "records/s >= 1x TF"),
    "word2vec steps/s (2 ps, 2 workers)": Target("tf", ">=", 1.0, "steps/s >= 1x TF"),
    "word2vec bytes on the wire per step": Target("row", "<=", 1.2, "B <= 1.2x rows touched"),
    "mutual TLS: remote step (other task)": Target("row", "<=", 1.3, "time <= 1.3x plain"),
    **{
        f"mutual TLS: {row}": Target("row", ">=", 0.7, f"{unit} >= 0.7x plain")
        for row, unit in (
            ("fetch 64 MiB", "GB/s"),
            ("feed 64 MiB", "GB/s"),
            ("ps training steps/s (2 workers)", "steps/s"),
        )
    },
}
# Rows that are baselines for others, shown in the numpy column rather than as rows.
NUMPY_BASELINE = {
    "matmul 1024 (variables)": "matmul 1024 (numpy)",
    "matmul 1024 (feeds)": "matmul 1024 (numpy)",
}
# Rows measured against another row of the same run (that row is shown on its own too).
ROW_BASELINE = {
    "ps training steps/s, tf.data shards (2 workers)": (
        "ps training steps/s, feed_dict from memory (2 workers)"
    ),
    "word2vec bytes on the wire per step": "word2vec rows touched per step",
    "fetch 64 MiB from other task": "loopback TCP 64 MiB (one socket pair)",
    "feed 64 MiB to other task": "loopback TCP 64 MiB (one socket pair)",
    **{
        f"mutual TLS: {row}": f"plain: {row}"
        for row in (
            "remote step (other task)",
            "fetch 64 MiB",
            "feed 64 MiB",
            "ps training steps/s (2 workers)",
        )
    },
}


def _baseline_of(name: str) -> str:
    return NUMPY_BASELINE.get(name) or ROW_BASELINE.get(name, "")


# ---- the TensorFlow virtualenv -------------------------------------------------------------
def venv_python() -> str:
    return os.path.join(VENV_DIR, "bin", "python")


def installed_tf_version(python: str) -> str | None:
    if not os.path.exists(python):
        return None
    probe = "import tensorflow, numpy; print(tensorflow.__version__)"
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    r = subprocess.run([python, "-c", probe], capture_output=True, text=True, env=env)
    return r.stdout.strip().splitlines()[-1] if r.returncode == 0 and r.stdout.strip() else None


def ensure_venv() -> str:
    """bench/.venv-tf with the pinned TensorFlow and the bench's tools; made once, reused
    while the pin matches."""
    python = venv_python()
    if installed_tf_version(python) == TF_VERSION:
        log(f"reusing {os.path.relpath(VENV_DIR, REPO_DIR)} (TensorFlow {TF_VERSION})")
        ensure_bench_requirements(python)
        return python
    if not os.path.exists(python):
        log(f"creating {os.path.relpath(VENV_DIR, REPO_DIR)} with {sys.executable}")
        subprocess.run([sys.executable, "-m", "venv", VENV_DIR], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
    for reqs in TF_REQUIREMENTS:
        log(f"installing {' '.join(reqs)} (one time, about a minute)")
        r = subprocess.run([python, "-m", "pip", "install", "-q", *reqs])
        if r.returncode == 0 and installed_tf_version(python) == TF_VERSION:
            ensure_bench_requirements(python)
            return python
        log(f"could not install {reqs[0]}; trying the next choice")
    raise SystemExit(f"no TensorFlow {TF_VERSION} could be installed into {VENV_DIR}")


def ensure_bench_requirements(python: str) -> None:
    """matplotlib (for the plots) in the bench's virtualenv; a failure only costs the plot."""
    if subprocess.run([python, "-c", "import matplotlib"], capture_output=True).returncode == 0:
        return
    log(f"installing {' '.join(BENCH_REQUIREMENTS)} (one time)")
    if subprocess.run([python, "-m", "pip", "install", "-q", *BENCH_REQUIREMENTS]).returncode:
        log("could not install the bench's plotting requirements: plots will be skipped")


# ---- running programs ----------------------------------------------------------------------
def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", flush=True)


@dataclass
class Side:
    """One implementation's run of one program."""

    result: dict[str, Any] | None = None
    error: str = ""

    @property
    def rows(self) -> dict[str, dict[str, Any]]:
        return {r["name"]: r for r in (self.result or {}).get("rows", [])}

    @property
    def skipped(self) -> str:
        return str((self.result or {}).get("skipped", ""))


def run_program(python: str, bench: Bench, impl: str, extra: list[str], timeout_s: float) -> Side:
    """Runs one program, echoing its progress lines; its last BENCH_RESULT line is the result."""
    cmd = [python, os.path.join(PROGRAMS_DIR, bench.program), "--impl", impl, *extra]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "PYTHONUNBUFFERED": "1"}
    tag = f"{bench.name}/{impl}"
    with subprocess.Popen(
        cmd,
        cwd=REPO_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    ) as proc:
        assert proc.stdout is not None
        tail: deque[str] = deque(maxlen=25)
        result = None
        killer = threading.Timer(timeout_s, proc.kill)  # a hung program must not hang us
        killer.start()
        try:
            for line in proc.stdout:
                if line.startswith(RESULT_PREFIX):
                    result = json.loads(line[len(RESULT_PREFIX) :])
                elif not _tf_noise(line):
                    tail.append(line.rstrip())
                    print(f"  [{tag}] {line.rstrip()}", flush=True)
            rc = proc.wait()
        finally:
            timed_out = not killer.is_alive()
            killer.cancel()
    if timed_out:
        return Side(error=f"timed out after {timeout_s:.0f} s")
    if rc != 0 or result is None:
        return Side(error=f"exit status {rc}: " + " | ".join(list(tail)[-6:]))
    return Side(result=result)


def _tf_noise(line: str) -> bool:
    return line.startswith(("I0000", "W0000", "WARNING: All log messages")) or "oneDNN" in line


# ---- one benchmark, both sides -------------------------------------------------------------
@dataclass
class Outcome:
    bench: Bench
    tfc: Side
    tf: Side = field(default_factory=Side)
    skipped: str = ""
    profiles: dict[str, str] = field(default_factory=dict)


def run_bench(bench: Bench, args: argparse.Namespace, tf_python: str, budget_end: float) -> Outcome:
    extra = program_args(args)
    timeout = max(60.0, budget_end - time.monotonic() + 120)
    log(f"{bench.name} ({bench.issue}): {bench.what} -- tfcluster side")
    tfc = run_program(sys.executable, bench, "tfcluster", extra, timeout)
    out = Outcome(bench, tfc)
    if tfc.skipped and not args.tf_baseline:
        out.skipped = tfc.skipped
        log(f"skipped: {tfc.skipped}")
        return out
    log(f"{bench.name} ({bench.issue}) -- TensorFlow side")
    python = args.tf1_python if bench.needs_tf1 and args.tf1_python else tf_python
    out.tf = run_program(python, bench, "tf", extra, timeout)
    if tfc.skipped:
        out.skipped = tfc.skipped
        return out
    missed = [name for name, *_ in evaluate(out) if _missed(out, name)]
    if missed and args.profile_misses and time.monotonic() < budget_end:
        log(f"targets missed ({', '.join(missed)}): profiling the tfcluster side")
        prof = run_program(
            sys.executable, bench, "tfcluster", [*extra, "--profile", ",".join(missed)], timeout
        )
        out.profiles = {n: r.get("profile", "") for n, r in prof.rows.items() if r.get("profile")}
    return out


def program_args(args: argparse.Namespace) -> list[str]:
    extra = ["--quick"] if args.quick else []
    if args.seconds is not None:
        extra += ["--seconds", str(args.seconds)]
    return extra


def evaluate(out: Outcome) -> list[tuple[str, float | None, float | None, bool | None]]:
    """Per tfcluster row: (name, ratio to TF, ratio to numpy, target met or None)."""
    res = []
    tf_rows = out.tf.rows
    tfc_rows = out.tfc.rows
    for name, row in tfc_rows.items():
        if name in NUMPY_BASELINE.values():
            continue
        ratio_tf = _ratio(row, tf_rows.get(name))
        base = tfc_rows.get(_baseline_of(name))
        ratio_np = _ratio(row, base)
        target = TARGETS.get(name)
        met = None
        chosen = ratio_tf if target and target.baseline == "tf" else ratio_np
        if target and chosen is not None:
            met = target.met(chosen)
        res.append((name, ratio_tf, ratio_np, met))
    return res


def _ratio(row: dict[str, Any], base: dict[str, Any] | None) -> float | None:
    if not base or not base["median"]:
        return None
    return float(row["median"]) / float(base["median"])


def _missed(out: Outcome, name: str) -> bool:
    return any(n == name and met is False for n, _, _, met in evaluate(out))


# ---- the report ----------------------------------------------------------------------------
def machine_info(tf_python: str) -> dict[str, str]:
    cpu = "unknown"
    mem = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(
                (ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu
            )
        with open("/proc/meminfo") as f:
            kb = int(next(ln.split()[1] for ln in f if ln.startswith("MemTotal")))
            mem = f"{kb / 2**20:.1f} GiB"
    except OSError:
        pass
    import numpy

    tf_np = subprocess.run(
        [tf_python, "-c", "import numpy; print(numpy.__version__)"], capture_output=True, text=True
    ).stdout.strip()
    return {
        "nproc": str(len(os.sched_getaffinity(0))),
        "CPU": cpu,
        "memory": mem,
        "OS": f"{platform.system()} {platform.release()}",
        "load average at start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "Python": platform.python_version(),
        "numpy (tfcluster side)": numpy.__version__,
        "TensorFlow": f"tensorflow-cpu {installed_tf_version(tf_python)} (numpy {tf_np})",
        "tfcluster commit": git_commit(),
    }


def git_commit() -> str:
    r = subprocess.run(
        ["git", "-C", REPO_DIR, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    dirty = subprocess.run(
        ["git", "-C", REPO_DIR, "status", "--porcelain", "--untracked-files=no", "server"],
        capture_output=True,
        text=True,
    )
    return r.stdout.strip() + (" (server/ has uncommitted changes)" if dirty.stdout.strip() else "")


def fmt(row: dict[str, Any] | None) -> str:
    if not row:
        return "—"
    m, q1, q3 = row["median"], row["q1"], row["q3"]
    if row["kind"] == "time":
        scale, unit = (1e3, "ms") if m >= 1e-3 else (1e6, "µs")
        return f"{m * scale:.1f} {unit} [{q1 * scale:.1f}-{q3 * scale:.1f}]"
    return f"{m:.3g} {row['unit']} [{q1:.3g}-{q3:.3g}]"


def ratio_text(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}x"


def table(outcomes: list[Outcome]) -> list[str]:
    lines = [
        "| Benchmark | tfcluster | TensorFlow | tfcluster/TF | baseline | tfcluster/baseline "
        "| Target | Result |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for out in outcomes:
        if out.tfc.error:
            err = out.tfc.error.replace("|", "/")
            lines.append(
                f"| {out.bench.name} ({out.bench.issue}) | error: {err} | | | | | | **FAIL** |"
            )
            continue
        if out.skipped:
            lines += skipped_lines(out)
            continue
        tf_rows, tfc_rows = out.tf.rows, out.tfc.rows
        for name, r_tf, r_np, met in evaluate(out):
            target = TARGETS.get(name)
            result = "—" if met is None else ("pass" if met else "**FAIL**")
            if out.tf.error and target and target.baseline == "tf":
                result = f"no TF figure ({out.tf.error})"
            np_row = tfc_rows.get(_baseline_of(name))
            lines.append(
                f"| {name} | {fmt(tfc_rows[name])} | {fmt(tf_rows.get(name))} | "
                f"{ratio_text(r_tf)} | {fmt(np_row)} | {ratio_text(r_np)} | "
                f"{target.text if target else '—'} | {result} |"
            )
    return lines


def skipped_lines(out: Outcome) -> list[str]:
    names = [n for n, t in TARGETS.items() if _bench_of(n) == out.bench.name]
    tf_rows = out.tf.rows
    return [
        f"| {n} | skipped ({out.bench.issue}) | {fmt(tf_rows.get(n))} | — | — | — | "
        f"{TARGETS[n].text} | not run |"
        for n in names
    ]


def _bench_of(row_name: str) -> str:
    if row_name.startswith("word2vec "):
        return "word2vec_ps"
    if row_name.startswith(("plain: ", "mutual TLS")):
        return "tls_transport"
    if row_name.startswith(("tfrecord ", "map num_parallel_calls")):
        return "data_pipeline"
    if row_name.startswith("ps training steps/s,"):
        return "data_distributed"
    if row_name.startswith(("step:", "matmul", "4 independent")):
        return "local_session"
    if row_name.startswith("scaling:"):
        return "ps_scaling"
    if row_name.startswith(("ps training", "peak RSS, ps training")):
        return "ps_training"
    if row_name.startswith("lstm"):
        return "lstm_training"
    if row_name.startswith("queue "):
        return "queue_input"
    if row_name.startswith("conv net"):
        return "cnn_training"
    if row_name.startswith("dqn "):
        return "dqn_conv"
    return "cluster_session"


def summary(outcomes: list[Outcome]) -> list[str]:
    met: list[str] = []
    missed: list[str] = []
    skipped: list[str] = []
    for out in outcomes:
        if out.tfc.error:
            missed.append(f"{out.bench.name} ({out.bench.issue}) failed: {out.tfc.error}")
            continue
        if out.skipped:
            skipped.append(f"{out.bench.name} ({out.bench.issue}): {out.skipped}")
            continue
        for name, r_tf, r_np, ok in evaluate(out):
            if ok is None:
                continue
            t = TARGETS[name]
            ratio = r_tf if t.baseline == "tf" else r_np
            (met if ok else missed).append(f"{name}: {ratio:.2f}x ({t.text})")
    lines = [
        f"- Targets met: {len(met)}; missed: {len(missed)}; benchmarks not run: {len(skipped)}."
    ]
    lines += [f"- MISSED — {m}" for m in missed]
    lines += [f"- met — {m}" for m in met]
    lines += [f"- not run — {s}" for s in skipped]
    return lines


def details(outcomes: list[Outcome]) -> list[str]:
    """The detail line of each row that has one (per-worker rates, CPU per step, ...)."""
    lines = []
    for out in outcomes:
        for name, row in out.tfc.rows.items():
            theirs = out.tf.rows.get(name, {}).get("detail", "")
            ours = row.get("detail", "")
            if ours or theirs:
                lines.append(f"- {name}: tfcluster: {ours or '—'}; TF: {theirs or '—'}")
    return lines


def report(outcomes: list[Outcome], info: dict[str, str], command: str, took: float) -> str:
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Benchmark results: tfcluster vs TensorFlow",
        "",
        "Generated by bench/run.py; do not edit by hand (see bench/README.md for what each "
        "row measures).",
        "",
        f"- Command: `{command}` (from the repository root; took {took:.0f} s)",
        f"- Date: {now}",
    ]
    lines += [f"- {k}: {v}" for k, v in info.items()]
    lines += [
        "",
        "Figures are medians over timed samples after warm-up, [first-third quartile] in "
        "brackets. Times are per call; for rates (GB/s, steps/s) higher is better and the "
        "ratio is a throughput ratio. Both implementations run in their own processes on the "
        "same machine, one after the other. The issues quote rough TensorFlow figures for "
        "this machine; the ratios here use TensorFlow's figures measured in this same run.",
        "",
        *table(outcomes),
        "",
        "## Targets (from the issues)",
        "",
        *summary(outcomes),
    ]
    detailed = details(outcomes)
    if detailed:
        lines += ["", "## Details of rows (as each side measured them)", "", *detailed]
    profiled = [(n, p) for out in outcomes for n, p in out.profiles.items()]
    if profiled:
        lines += ["", "## Where tfcluster's time goes on missed targets (cProfile)", ""]
        for name, prof in profiled:
            lines += [f"### {name}", "", "```", prof.rstrip(), "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def write_main(path: str, text: str) -> None:
    """Puts `text` at the head of `path`, in place of what precedes its first named section
    (sections written with --section stay)."""
    old = ""
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
    marker = "<!-- section: "
    sections = old[old.index(marker) :] if marker in old else ""
    with open(path, "w") as f:
        f.write(text + ("\n" + sections if sections else ""))


def write_section(path: str, name: str, text: str) -> None:
    """Puts `text` (a report, its headings one level down) into `path` as section `name`,
    replacing that section if the file has it, keeping everything else."""
    begin, end = f"<!-- section: {name} -->", f"<!-- end of section: {name} -->"
    lines = [("#" + ln if ln.startswith("#") else ln) for ln in text.rstrip().splitlines()]
    lines[0] = f"## {name}: " + lines[0].lstrip("# ")
    block = "\n".join([begin, *lines, end]) + "\n"
    old = ""
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
    if begin in old and end in old:
        head, rest = old.split(begin, 1)
        tail = rest.split(end, 1)[1].lstrip("\n")
        new = head + block + ("\n" + tail if tail else "")
    else:
        new = (old.rstrip() + "\n\n" if old.strip() else "") + block
    with open(path, "w") as f:
        f.write(new)


def plot_scaling(outcomes: list[Outcome], tf_python: str) -> None:
    """bench/scaling.png from the ps_scaling rows of both sides (bench/plot_scaling.py, run
    with the bench virtualenv's Python, which has matplotlib)."""
    out = next((o for o in outcomes if o.bench.name == "ps_scaling" and o.tfc.result), None)
    if out is None or not out.tf.result:
        return
    data = json.dumps({"tfcluster": out.tfc.result["rows"], "tf": out.tf.result["rows"]})
    script = os.path.join(BENCH_DIR, "plot_scaling.py")
    r = subprocess.run([tf_python, script, SCALING_PLOT], input=data, text=True)
    if r.returncode == 0:
        log(f"wrote {os.path.relpath(SCALING_PLOT, REPO_DIR)}")
    else:
        log("could not plot the scaling curves (see above)")


# ---- main ----------------------------------------------------------------------------------
def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--quick", action="store_true", help="fewer samples and shorter runs")
    p.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="time cap per group of measurements in each program (default 15, quick 5)",
    )
    p.add_argument(
        "--budget",
        type=float,
        default=None,
        help="overall seconds; benchmarks not started by then are skipped (default 900, quick 300)",
    )
    p.add_argument(
        "--only",
        default="",
        help="comma-separated benchmark names: " + ", ".join(b.name for b in BENCHES),
    )
    p.add_argument(
        "--tf-baseline",
        action="store_true",
        help="also run the TensorFlow side of benchmarks tfcluster cannot run yet",
    )
    p.add_argument(
        "--no-profile",
        dest="profile_misses",
        action="store_false",
        help="do not re-run missed targets under cProfile",
    )
    p.add_argument(
        "--results",
        default=os.path.join(BENCH_DIR, "RESULTS.md"),
        help="markdown file to write (default bench/RESULTS.md)",
    )
    p.add_argument(
        "--section",
        default="",
        help="write the results as the named section of the results file, replacing that "
        "section only (for runs of some benchmarks, with --only); without it the head of the "
        "file (everything before its named sections) is rewritten",
    )
    p.add_argument(
        "--tf1-python",
        default="",
        help="a Python with TensorFlow 1.x (1.15) for the TF side of benchmarks that need it "
        "(tf.keras in graph mode: keras_small); without it their TF side reports why it skips",
    )
    p.add_argument("--no-write", action="store_true", help="print the table only")
    p.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    return p.parse_args()


def main() -> int:
    args = parse_args()
    command = os.environ.get("BENCH_COMMAND") or shlex.join(
        ["python", os.path.relpath(os.path.abspath(sys.argv[0]), REPO_DIR), *sys.argv[1:]]
    )
    start = time.monotonic()
    budget = args.budget if args.budget is not None else (300.0 if args.quick else 900.0)
    budget_end = start + budget
    try:
        import tfcluster  # noqa: F401
    except ImportError as e:
        raise SystemExit(f"run this with the project's Python (pip install -e .): {e}") from e
    tf_python = ensure_venv()
    info = machine_info(tf_python)
    wanted = {w.strip() for w in args.only.split(",") if w.strip()}
    unknown = wanted - {b.name for b in BENCHES}
    if unknown:
        raise SystemExit(f"unknown benchmark(s) {sorted(unknown)}")
    outcomes: list[Outcome] = []
    for bench in BENCHES:
        if wanted and bench.name not in wanted:
            continue
        if time.monotonic() > budget_end:
            why = f"time budget of {budget:.0f} s used up (--budget)"
            log(f"skipped: {bench.name}: {why}")
            outcomes.append(Outcome(bench, Side(), skipped=why))
            continue
        outcomes.append(run_bench(bench, args, tf_python, budget_end))
    plot_scaling(outcomes, tf_python)
    took = time.monotonic() - start
    text = report(outcomes, info, command, took)
    print()
    print("\n".join(table(outcomes)))
    print()
    print("\n".join(summary(outcomes)))
    if not args.no_write:
        if args.section:
            write_section(args.results, args.section, text)
        else:
            write_main(args.results, text)
        log(f"wrote {os.path.relpath(args.results, REPO_DIR)} ({took:.0f} s in all)")
    missed = any(o.tfc.error or any(_missed(o, n) for n, *_ in evaluate(o)) for o in outcomes)
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
