"""`tfcluster`: the main job. Starts local clusters and runs training programs on them.

    tfcluster train                       an MLP on scikit-learn's digits trained by between-graph
                                          replication on a local cluster (1 ps + 2 workers):
                                          progress bar, checkpoints and TensorBoard logs in a run
                                          folder, held-out accuracy
    tfcluster run SCRIPT [--ps N --workers M] [-- SCRIPT ARGS]
                                          a between-graph program on a local cluster: every task
                                          runs SCRIPT with --ps_hosts/--worker_hosts/--job_name/
                                          --task_index (and TF_CONFIG)
    tfcluster run SCRIPT --cluster_spec SPEC [--job_name J --task_index I] [-- SCRIPT ARGS]
                                          SCRIPT against an existing cluster (e.g. on Kubernetes):
                                          as one of its tasks, or as a client (TF_CONFIG and
                                          TFCLUSTER_MASTER tell it where the cluster is)
    tfcluster cluster [--ps N --workers M]
                                          only the task servers, until Ctrl-C (prints the spec)

Each local task is its own process; worker 0 (the chief) shows its output here, the others
write to <logdir>/tasks/<job>-<index>.log. The command exits with the first failing worker's
status (0 when every worker finished). Each task serves Prometheus metrics on a port of its
own (TFCLUSTER_METRICS_PORT for a program's tf.train.Server); a line per task says where.
The command reads its environment here and gives each task its own (settings/contract.py).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from tfcluster.cli import local_ca
from tfcluster.settings import contract
from tfcluster.task_server.ports import free_ports

EXIT_USAGE = 2
EXAMPLE_MODULE = "tfcluster.examples.digits_distributed"
# Where a client program run against an existing cluster finds its master.
MASTER_ENV = "TFCLUSTER_MASTER"
# gRPC logs a peer going away at INFO, and a task leaving the cluster is normal here: the
# processes this command starts log gRPC's errors only, unless GRPC_VERBOSITY says otherwise.
GRPC_VERBOSITY = ("GRPC_VERBOSITY", "ERROR")


def child_environment(env: dict[str, str], environ: Any = os.environ) -> dict[str, str]:
    """The environment of a process this command starts: ours, with `env` on top."""
    full_env = {**environ, **env}
    full_env.setdefault(*GRPC_VERBOSITY)
    return full_env


# ---- a local cluster of processes ------------------------------------------------------------


def local_cluster(num_ps: int, num_workers: int, host: str = "localhost") -> dict[str, list[str]]:
    ports = free_ports(num_ps + num_workers, host)
    return {
        "ps": [f"{host}:{p}" for p in ports[:num_ps]],
        "worker": [f"{host}:{p}" for p in ports[num_ps:]],
    }


def side_ports(
    cluster: dict[str, list[str]], kinds: int, host: str = "localhost"
) -> list[dict[str, int]]:
    """`kinds` free ports per task ('ps-0', 'worker-1', ...), all distinct, none a task's own:
    chosen here, not by each server, so that one task cannot take another's before it starts."""
    names = [f"{job}-{i}" for job, tasks in cluster.items() for i in range(len(tasks))]
    taken = {a.rpartition(":")[2] for tasks in cluster.values() for a in tasks}
    while True:
        ports = free_ports(len(names) * kinds, host)
        if not taken & {str(p) for p in ports}:
            n = len(names)
            return [dict(zip(names, ports[k * n : (k + 1) * n])) for k in range(kinds)]


def metrics_ports(cluster: dict[str, list[str]], host: str = "localhost") -> dict[str, int]:
    """A free metrics port per task ('ps-0', 'worker-1', ...), none of them a task's own."""
    return side_ports(cluster, 1, host)[0]


def print_metrics_urls(ports: dict[str, int], host: str = "localhost") -> None:
    for name, port in ports.items():
        print(f"[tfcluster] metrics of {name}: http://{host}:{port}/metrics", flush=True)


def cluster_flag(cluster: dict[str, list[str]]) -> str:
    """{'ps': [a], 'worker': [b, c]} -> 'ps|a,worker|b;c' (tfcluster-server's --cluster_spec)."""
    return ",".join(f"{job}|" + ";".join(tasks) for job, tasks in cluster.items() if tasks)


def parse_cluster_spec(text: str) -> dict[str, list[str]]:
    """'ps|h:1,worker|h:2;h:3' or a JSON object {'ps': [...], ...} -> job -> addresses."""
    text = text.strip()
    if text.startswith("{"):
        data = json.loads(text)
        data = data.get("cluster", data)
        return {str(job): [str(a) for a in tasks] for job, tasks in data.items()}
    out: dict[str, list[str]] = {}
    for part in text.split(","):
        job, sep, tasks = part.partition("|")
        if not sep or not job.strip() or not tasks.strip():
            raise ValueError(
                f"bad job in cluster spec {text!r}: {part!r} (want 'job|host:port;...')"
            )
        out[job.strip()] = [t.strip() for t in tasks.split(";") if t.strip()]
    return out


def tf_config(cluster: dict[str, list[str]], job: str | None, index: int | None) -> str:
    config: dict[str, Any] = {"cluster": cluster}
    if job is not None:
        config["task"] = {"type": job, "index": index or 0}
    return json.dumps(config)


@dataclass
class Task:
    job: str
    index: int
    proc: subprocess.Popen[str]
    log_path: str | None
    results: list[dict[str, Any]] = field(default_factory=list)
    output: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.job}-{self.index}"


class LocalCluster:
    """The processes of one local run; every one of them is stopped on close()."""

    def __init__(self, logdir: str) -> None:
        self.logdir = logdir
        self.tasks: list[Task] = []
        self._readers: list[threading.Thread] = []
        self._log_files: list[IO[str]] = []

    def start_task(
        self,
        command: Sequence[str],
        job: str,
        index: int,
        env: dict[str, str],
        foreground: bool,
    ) -> Task:
        full_env = child_environment(env)
        full_env.setdefault("PYTHONUNBUFFERED", "1")
        log_path = None
        # Each task in its own process group: Ctrl-C reaches only this command, which then
        # stops every task (no KeyboardInterrupt tracebacks from the tasks).
        if foreground:
            proc = subprocess.Popen(
                list(command),
                env=full_env,
                stdout=subprocess.PIPE,
                stderr=None,
                text=True,
                process_group=0,
            )
        else:
            os.makedirs(os.path.join(self.logdir, "tasks"), exist_ok=True)
            log_path = os.path.join(self.logdir, "tasks", f"{job}-{index}.log")
            log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115 - closed in close()
            self._log_files.append(log)
            proc = subprocess.Popen(
                list(command),
                env=full_env,
                stdout=log,
                stderr=subprocess.STDOUT,
                text=True,
                process_group=0,
            )
        task = Task(job, index, proc, log_path)
        self.tasks.append(task)
        if foreground:
            reader = threading.Thread(target=_forward, args=(task,), daemon=True)
            reader.start()
            self._readers.append(reader)
        return task

    def wait_workers(self, workers: Sequence[Task]) -> int:
        """Waits for the workers; the first failure stops the whole cluster."""
        status = 0
        pending = list(workers)
        while pending:
            for t in list(pending):
                code = t.proc.poll()
                if code is None:
                    continue
                pending.remove(t)
                if code != 0 and status == 0:
                    status = code
                    print(f"[tfcluster] {t.name} exited with status {code}", file=sys.stderr)
                    for other in pending:
                        _stop(other.proc)
            time.sleep(0.1)
        for r in self._readers:
            r.join(5)
        for t in workers:
            if t.log_path is not None:
                t.results.extend(_results_in(_read(t.log_path)))
        return status

    def close(self) -> None:
        # Every task is told at once, then waited for: stopping takes the slowest task's time,
        # not the sum of all of them.
        running = [t.proc for t in self.tasks if t.proc.poll() is None]
        for proc in running:
            proc.send_signal(signal.SIGTERM)
        for proc in running:
            _wait_or_kill(proc)
        for f in self._log_files:
            f.close()


def _forward(task: Task) -> None:
    """Copies the chief's stdout here, keeping its RESULT lines."""
    assert task.proc.stdout is not None
    for line in task.proc.stdout:
        task.output.append(line)
        task.results.extend(_results_in(line))
        sys.stdout.write(line)
        sys.stdout.flush()


def _results_in(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        if line.startswith("RESULT "):
            with contextlib.suppress(ValueError):
                out.append(json.loads(line[len("RESULT ") :]))
    return out


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _stop(proc: subprocess.Popen[Any], timeout: float = 10.0) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    _wait_or_kill(proc, timeout)


def _wait_or_kill(proc: subprocess.Popen[Any], timeout: float = 10.0) -> None:
    """Waits for a task told to stop; one still running after `timeout` is killed. (Told
    once: a second SIGTERM would interrupt the task's own handler.)"""
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


@contextlib.contextmanager
def _interruptible(cluster: LocalCluster) -> Iterator[None]:
    """Ctrl-C or SIGTERM stops every task before the command exits."""

    def on_signal(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    # SIGINT too: a command started in the background by a shell script inherits SIGINT
    # ignored, and Python then installs no handler of its own for it.
    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        cluster.close()


# ---- commands ------------------------------------------------------------------------------


def _task_command(
    base: Sequence[str],
    cluster: dict[str, list[str]],
    job: str,
    index: int,
    task_flags: bool,
    extra: Sequence[str],
) -> list[str]:
    cmd = list(base)
    if task_flags:
        cmd += [
            f"--ps_hosts={','.join(cluster.get('ps', []))}",
            f"--worker_hosts={','.join(cluster.get('worker', []))}",
            f"--job_name={job}",
            f"--task_index={index}",
        ]
    return cmd + list(extra)


def run_local(
    base: Sequence[str],
    num_ps: int,
    num_workers: int,
    logdir: str,
    extra: Sequence[str],
    task_flags: bool = True,
    tls: bool = False,
) -> tuple[int, list[Task]]:
    """Starts num_ps + num_workers processes of `base`; returns (status, worker tasks).
    `tls`: mutual TLS between the tasks, with a CA made for this run."""
    if num_workers < 1:
        raise ValueError("a cluster needs at least one worker")
    if num_ps < 0:
        raise ValueError("the number of ps tasks cannot be negative")
    cluster = local_cluster(num_ps, num_workers)
    os.makedirs(logdir, exist_ok=True)
    print(f"[tfcluster] cluster: {cluster_flag(cluster)}", flush=True)
    metrics, direct = side_ports(cluster, 2)
    print_metrics_urls(metrics)
    local = LocalCluster(logdir)
    secured = throwaway_tls(logdir)[0] if tls else {}
    with _interruptible(local):
        for job in ("ps", "worker"):
            for i in range(len(cluster[job])):
                # No thread settings: each task server sizes its pools itself (host_share).
                env = {contract.TF_CONFIG_ENV: tf_config(cluster, job, i), **secured}
                env[contract.METRICS_PORT_ENV] = str(metrics[f"{job}-{i}"])
                env[contract.DIRECT_PORT_ENV] = str(direct[f"{job}-{i}"])
                cmd = _task_command(base, cluster, job, i, task_flags, extra)
                local.start_task(cmd, job, i, env, foreground=(job == "worker" and i == 0))
        workers = [t for t in local.tasks if t.job == "worker"]
        try:
            status = local.wait_workers(workers)
        except KeyboardInterrupt:
            print("\n[tfcluster] interrupted: stopping the cluster", file=sys.stderr)
            return 130, workers
    return status, workers


def throwaway_tls(logdir: str) -> tuple[dict[str, str], dict[str, str]]:
    """A CA made for this run (in <logdir>/tls, readable by its owner only): the environment
    of the tasks (their certificate) and of clients (theirs)."""
    folder = os.path.join(logdir, "tls")
    tasks, client = local_ca.local_identities(folder, ["localhost"])
    print(f"[tfcluster] mutual TLS with a CA made for this run: {folder}", flush=True)

    def env(files: local_ca.TLSFilePaths) -> dict[str, str]:
        return {
            contract.TLS_CERT_ENV: files.cert,
            contract.TLS_KEY_ENV: files.key,
            contract.TLS_CA_ENV: files.ca,
        }

    return env(tasks), env(client)


def _default_logdir(name: str) -> str:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return os.path.join("runs", f"{name}-{stamp}")


def cmd_train(args: argparse.Namespace, extra: Sequence[str]) -> int:
    logdir = os.path.abspath(args.logdir or _default_logdir("digits"))
    print(f"[tfcluster] run folder (checkpoints, TensorBoard logs, task logs): {logdir}")
    flags = [
        f"--logdir={logdir}",
        f"--last_step={args.last_step}",
        f"--batch_size={args.batch_size}",
        f"--learning_rate={args.learning_rate}",
        f"--save_checkpoint_steps={args.save_checkpoint_steps}",
    ]
    if args.sync:
        flags.append("--sync")
    base = [sys.executable, "-m", EXAMPLE_MODULE]
    status, workers = run_local(base, args.ps, args.workers, logdir, [*flags, *extra], tls=args.tls)
    _report(workers, logdir)
    return status


def _report(workers: Sequence[Task], logdir: str) -> None:
    by_index = {t.index: (t.results[-1] if t.results else None) for t in workers}
    parts = []
    for i in sorted(by_index):
        r = by_index[i]
        parts.append(f"worker {i}: {r['local_steps']} steps" if r else f"worker {i}: no result")
    print("[tfcluster] " + ", ".join(parts))
    chief = by_index.get(0)
    if chief and "held_out_accuracy" in chief:
        print(
            f"[tfcluster] held-out accuracy: {chief['held_out_accuracy']:.4f} at global step "
            f"{chief['global_step']}"
        )
    print(
        f"[tfcluster] checkpoints and TensorBoard logs: {logdir}  (tensorboard --logdir {logdir})"
    )


def cmd_run(args: argparse.Namespace, extra: Sequence[str]) -> int:
    script = args.script
    if not os.path.exists(script):
        print(f"tfcluster run: no such script: {script}", file=sys.stderr)
        return EXIT_USAGE
    base = [sys.executable, script]
    if args.cluster_spec:
        if args.tls:
            print(
                "tfcluster run: --tls makes a CA for a local cluster; a client of an existing "
                f"cluster sets {contract.TLS_CERT_ENV}/{contract.TLS_KEY_ENV}/"
                f"{contract.TLS_CA_ENV} to the files of its certificate",
                file=sys.stderr,
            )
            return EXIT_USAGE
        try:
            cluster = parse_cluster_spec(args.cluster_spec)
        except ValueError as e:
            print(f"tfcluster run: {e}", file=sys.stderr)
            return EXIT_USAGE
        return _run_against(base, cluster, args, extra)
    logdir = os.path.abspath(args.logdir or _default_logdir("run"))
    print(f"[tfcluster] task logs in {os.path.join(logdir, 'tasks')}")
    status, _ = run_local(
        base, args.ps, args.workers, logdir, extra, not args.no_task_flags, tls=args.tls
    )
    return status


def _run_against(
    base: Sequence[str],
    cluster: dict[str, list[str]],
    args: argparse.Namespace,
    extra: Sequence[str],
) -> int:
    """SCRIPT as one task of an existing cluster (--job_name), or as a plain client."""
    env: dict[str, str] = {}
    cmd = list(base)
    if args.job_name:
        if args.job_name not in cluster:
            print(f"tfcluster run: job {args.job_name!r} is not in the cluster", file=sys.stderr)
            return EXIT_USAGE
        env[contract.TF_CONFIG_ENV] = tf_config(cluster, args.job_name, args.task_index)
        if not args.no_task_flags:
            cmd = _task_command(base, cluster, args.job_name, args.task_index, True, [])
    else:
        env[contract.TF_CONFIG_ENV] = tf_config(cluster, None, None)
    # A client's default master: the first worker (or the first task of the first job).
    first_job = "worker" if cluster.get("worker") else next(iter(cluster))
    master = os.environ.get(MASTER_ENV, "grpc://" + cluster[first_job][0])
    env = child_environment({**env, MASTER_ENV: master})
    proc = subprocess.Popen([*cmd, *extra], env=env)
    try:
        return proc.wait()
    except KeyboardInterrupt:
        _stop(proc)
        return 130


def cmd_cluster(args: argparse.Namespace, extra: Sequence[str]) -> int:
    cluster = local_cluster(args.ps, args.workers)
    spec = cluster_flag(cluster)
    metrics, direct = side_ports(cluster, 2)
    logdir = os.path.abspath(args.logdir or _default_logdir("cluster"))
    local = LocalCluster(logdir)
    secured, client_env = throwaway_tls(logdir) if args.tls else ({}, {})
    with _interruptible(local):
        for job, tasks in cluster.items():
            for i in range(len(tasks)):
                cmd = [
                    sys.executable,
                    "-m",
                    "tfcluster.cli.server_main",
                    f"--cluster_spec={spec}",
                    f"--job_name={job}",
                    f"--task_index={i}",
                    f"--metrics_port={metrics[f'{job}-{i}']}",
                ]
                env = {contract.DIRECT_PORT_ENV: str(direct[f"{job}-{i}"]), **secured}
                local.start_task(cmd, job, i, env, foreground=False)
        print(f"[tfcluster] cluster: {spec}")
        if client_env:
            exports = " ".join(f"{k}={v}" for k, v in client_env.items())
            print(f"[tfcluster] clients connect with: {exports}")
        print_metrics_urls(metrics)
        print(f"[tfcluster] sessions: tf.Session('grpc://{cluster['worker'][0]}')")
        try:
            # Inside the try: a Ctrl-C sent as soon as this line is read may land in print.
            print("[tfcluster] Ctrl-C stops it", flush=True)
            while all(t.proc.poll() is None for t in local.tasks):
                time.sleep(0.5)
        except KeyboardInterrupt:
            return 0
        dead = [t.name for t in local.tasks if t.proc.poll() is not None]
        print(f"[tfcluster] task(s) exited: {', '.join(dead)}; logs in {logdir}", file=sys.stderr)
        return 1


def cmd_convert_checkpoint(args: argparse.Namespace, extra: Sequence[str]) -> int:
    """Rewrites checkpoints of tfcluster 0.1's own format as TF's V2 format."""
    from tfcluster.framework.tensor_bundle import legacy

    for prefix in args.prefixes:
        if not legacy.is_legacy(prefix):
            raise ValueError(f"{prefix} is not a checkpoint in tfcluster 0.1's format")
        written = legacy.convert(prefix, args.output if len(args.prefixes) == 1 else None)
        print(f"[tfcluster] {prefix} -> {written} (TensorFlow checkpoint format V2)")
    return 0


# ---- argument parsing ------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tfcluster",
        description="Local tfcluster clusters and the programs that train on them.",
    )
    sub = parser.add_subparsers(dest="command")

    train = sub.add_parser(
        "train", help="an MLP on digits by between-graph replication, 1 ps + 2 workers"
    )
    train.add_argument("--ps", type=int, default=1, help="number of ps tasks")
    train.add_argument("--workers", type=int, default=2, help="number of worker tasks")
    train.add_argument("--logdir", default="", help="run folder (default: runs/digits-<time>)")
    train.add_argument("--last_step", type=int, default=2000)
    train.add_argument("--batch_size", type=int, default=32)
    train.add_argument("--learning_rate", type=float, default=0.2)
    train.add_argument("--save_checkpoint_steps", type=int, default=200)
    train.add_argument("--sync", action="store_true", help="synchronous (SyncReplicasOptimizer)")
    tls_help = "mutual TLS between the tasks and clients, with a CA made for this run"
    train.add_argument("--tls", action="store_true", help=tls_help)

    run = sub.add_parser("run", help="run SCRIPT on a local cluster or an existing one")
    run.add_argument("script")
    run.add_argument("--ps", type=int, default=1)
    run.add_argument("--workers", type=int, default=2)
    run.add_argument("--logdir", default="")
    run.add_argument("--cluster_spec", default="", help="an existing cluster: 'job|h:p;h:p,...'")
    run.add_argument("--job_name", default="", help="with --cluster_spec: run as this task")
    run.add_argument("--task_index", type=int, default=0)
    run.add_argument(
        "--no_task_flags",
        action="store_true",
        help="pass only TF_CONFIG, not --ps_hosts/--worker_hosts/--job_name/--task_index",
    )
    run.add_argument("--tls", action="store_true", help=tls_help)

    cluster = sub.add_parser("cluster", help="start task servers only, until Ctrl-C")
    cluster.add_argument("--ps", type=int, default=1)
    cluster.add_argument("--workers", type=int, default=2)
    cluster.add_argument("--logdir", default="")
    cluster.add_argument("--tls", action="store_true", help=tls_help)

    convert = sub.add_parser(
        "convert-checkpoint",
        help="rewrite checkpoints of tfcluster 0.1's format as TensorFlow's V2 format",
    )
    convert.add_argument("prefixes", nargs="+", help="checkpoint prefixes (PREFIX.index ...)")
    convert.add_argument("--output", default=None, help="new prefix (one checkpoint only)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Everything after '--' belongs to the program being run.
    extra: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1 :]
    parser = build_parser()
    args = parser.parse_args(argv)
    commands = {
        "train": cmd_train,
        "run": cmd_run,
        "cluster": cmd_cluster,
        "convert-checkpoint": cmd_convert_checkpoint,
    }
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return commands[args.command](args, extra)
    except ValueError as e:
        print(f"tfcluster {args.command}: {e}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
