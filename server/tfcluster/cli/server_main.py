"""`tfcluster-server`: run one task of a cluster until SIGTERM/SIGINT.

    tfcluster-server --cluster_spec='worker|h0:2222;h1:2222,ps|h2:2222' \\
        --job_name=worker --task_index=0

Without --cluster_spec, the cluster and the task come from the TF_CONFIG environment variable
({"cluster": {...}, "task": {"type": ..., "index": ...}}), as Kubernetes operators set it.
Prometheus metrics are served at http://<host>:<metrics port>/metrics: --metrics_port, else
TFCLUSTER_METRICS_PORT (as the operator sets it), else 9090; 0 picks a free port, 'off' or -1
serves none. A port asked for (flag or variable) that is taken fails the start; the default
9090 (Prometheus' own port, too) is skipped with a warning when something else has it.
Direct streams are served on TFCLUSTER_DIRECT_PORT, else any free port (settings/contract.py
names what the operator sets). --tls_cert/--tls_key/--tls_ca (else TFCLUSTER_TLS_CERT/_KEY/_CA)
serve gRPC and direct streams over mutual TLS: only peers with a certificate from that CA get
in, and the files are read again when they change. A task whose own address is loopback
listens on loopback only; /metrics listens on --metrics_address (else
TFCLUSTER_METRICS_ADDRESS, else the same rule). A bad spec, a job or index not in it, or a
port in use: one line on stderr, exit status 2 (usage) or 1 (could not serve). In a container
the same line goes to the termination message file (settings/contract.py's
TERMINATION_MESSAGE_PATH), where the kubelet, and so the operator's status, reads why the task
stopped.

This command is the edge: it reads its flags and environment here and gives the server
values.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from collections.abc import Mapping, Sequence
from types import FrameType

from tfcluster.distributed.cluster_spec import ClusterSpec, parse_cluster_flag, parse_tf_config
from tfcluster.framework import errors
from tfcluster.rpc import tls
from tfcluster.settings import contract, environment
from tfcluster.task_server import ports
from tfcluster.task_server.options import ServerOptions
from tfcluster.task_server.server import Server

EXIT_USAGE = 2
EXIT_FAILED = 1

log = logging.getLogger("tfcluster.server")


class UsageError(Exception):
    """Bad flags or TF_CONFIG: reported as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    """The flags; other features (e.g. a metrics endpoint) add theirs here."""
    parser = argparse.ArgumentParser(
        prog="tfcluster-server", description="Run one task of a tfcluster cluster."
    )
    parser.add_argument(
        "--cluster_spec",
        default="",
        help="jobs separated by ',', each 'name|host:port;host:port' (default: TF_CONFIG)",
    )
    parser.add_argument("--job_name", default="", help="this task's job")
    parser.add_argument("--task_index", type=int, default=None, help="this task's index")
    parser.add_argument(
        "--log_level", default="INFO", help="Python logging level (DEBUG, INFO, WARNING, ...)"
    )
    parser.add_argument(
        "--metrics_port",
        default=None,
        help=f"port of the Prometheus /metrics endpoint; 0: any free port; 'off' or -1: none "
        f"(default: ${contract.METRICS_PORT_ENV}, else {contract.DEFAULT_METRICS_PORT})",
    )
    parser.add_argument(
        "--metrics_address",
        default=None,
        help=f"address the /metrics endpoint listens on (default: ${contract.METRICS_ADDRESS_ENV},"
        " else loopback for a task whose address is loopback, else every interface)",
    )
    parser.add_argument(
        "--tls_cert", default="", help=f"PEM certificate of this task (${contract.TLS_CERT_ENV})"
    )
    parser.add_argument(
        "--tls_key", default="", help=f"PEM private key of this task (${contract.TLS_KEY_ENV})"
    )
    parser.add_argument(
        "--tls_ca",
        default="",
        help=f"PEM certificate of the cluster's CA: only peers it signed get in "
        f"(${contract.TLS_CA_ENV})",
    )
    parser.add_argument(
        "--heartbeat_seconds",
        type=float,
        default=ServerOptions.heartbeat_seconds,
        help="seconds between heartbeats on direct connections; a peer that hears none for "
        "3 of them gives this task up (default: %(default)s)",
    )
    parser.add_argument(
        "--max_work_calls",
        type=int,
        default=ServerOptions.max_work_calls,
        help="how many calls that run steps or wait for tensors (open streams included) this "
        "task serves at once; more get RESOURCE_EXHAUSTED (default: %(default)s)",
    )
    parser.add_argument(
        "--memory_budget_bytes",
        type=int,
        default=None,
        help="the most memory a request may make this task hold; a bigger request gets "
        "RESOURCE_EXHAUSTED (default: the container's memory limit, else the machine's RAM)",
    )
    parser.add_argument(
        "--session_gc_seconds",
        type=float,
        default=ServerOptions.session_gc_seconds,
        help="close a session with no step for this long, deleting its graphs on every task; "
        "0: keep sessions until their client closes them (default: %(default)s)",
    )
    parser.add_argument(
        "--max_plans_per_session",
        type=int,
        default=ServerOptions.max_plans_per_session,
        help="how many distinct run signatures a session keeps planned and registered "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--orphan_tensor_seconds",
        type=float,
        default=ServerOptions.orphan_tensor_seconds,
        help="how long a tensor exchange waits for its step to run here, or for its receiver "
        "once the step finished here (default: %(default)s)",
    )
    return parser


def resolve_tls(args: argparse.Namespace, environ: Mapping[str, str]) -> tls.TLSFiles | None:
    """The TLS files from the flags, else from the environment; None: plain."""
    given = (args.tls_cert, args.tls_key, args.tls_ca)
    where = "--tls_cert, --tls_key and --tls_ca"
    if not any(given):
        given = environment.tls_files(environ) or ("", "", "")
        where = f"{contract.TLS_CERT_ENV}, {contract.TLS_KEY_ENV} and {contract.TLS_CA_ENV}"
    if not any(given):
        return None
    if not all(given):
        raise UsageError(f"{where} must be given together")
    return tls.TLSFiles(*given)


def resolve_metrics_address(args: argparse.Namespace, environ: Mapping[str, str]) -> str | None:
    """--metrics_address, else the environment's; None: the server's own rule."""
    if args.metrics_address is not None:
        return str(args.metrics_address)
    return environment.program_metrics_address(environ) or None


def write_termination_message(message: str, path: str = contract.TERMINATION_MESSAGE_PATH) -> bool:
    """Leave ``message`` where the kubelet reads a container's last words. The file exists
    only in a container (the kubelet mounts it); elsewhere nothing is written."""
    if not os.path.isfile(path):
        return False
    data = message.encode("utf-8", "replace")[: contract.TERMINATION_MESSAGE_LIMIT]
    data = data.decode("utf-8", "ignore").encode("utf-8")  # not cut inside a character
    try:
        with open(path, "wb") as out:
            out.write(data)
    except OSError:
        return False
    return True


def report_fatal(message: str, termination_log: str = contract.TERMINATION_MESSAGE_PATH) -> None:
    """A fatal error: one line on stderr and, in a container, the termination message."""
    print(message, file=sys.stderr)
    write_termination_message(message, termination_log)


def resolve_metrics_port(
    args: argparse.Namespace, environ: Mapping[str, str]
) -> tuple[ports.PortChoice, str]:
    """The metrics port for the server from the flag, the environment or the default 9090,
    and a warning to log once the server runs ('' if none). A port asked for must be had;
    the default is a wish: when it is taken (now, or by another server starting at the same
    moment, between our check and our bind) the server runs without metrics."""
    env_value = str(environ.get(contract.METRICS_PORT_ENV, "")).strip()
    if args.metrics_port is not None:
        text, where = str(args.metrics_port), "--metrics_port"
    elif env_value:
        text, where = env_value, contract.METRICS_PORT_ENV
    else:
        default = contract.DEFAULT_METRICS_PORT
        if not ports.port_available(default):
            return ports.PortChoice(None, False, "the default port"), (
                f"metrics port {default} is in use: serving no metrics "
                "(--metrics_port picks another)"
            )
        return ports.PortChoice(default, False, "the default port"), ""
    try:
        port = ports.parse_port(text, where)
    except ValueError as e:
        raise UsageError(str(e)) from None
    return ports.PortChoice(port, True, where), ""


def resolve_direct_port(environ: Mapping[str, str]) -> str:
    """The direct-streams port as the environment gives it ('0': any free port); the server
    warns, and serves none, when it cannot be had."""
    return environ.get(contract.DIRECT_PORT_ENV, "0")


def resolve_task(
    args: argparse.Namespace, environ: Mapping[str, str]
) -> tuple[ClusterSpec, str, int]:
    """(cluster, job, index) from the flags, or from TF_CONFIG when no --cluster_spec is given."""
    if args.cluster_spec:
        try:
            cluster = parse_cluster_flag(args.cluster_spec)
        except ValueError as e:
            raise UsageError(f"invalid --cluster_spec: {e}") from None
        job = args.job_name
        index = args.task_index
        if not job:
            if len(cluster.jobs) != 1:
                raise UsageError("--job_name is required when the cluster has several jobs")
            job = cluster.jobs[0]
        if index is None:
            index = 0
    else:
        text = environ.get(contract.TF_CONFIG_ENV, "")
        if not text:
            raise UsageError("no --cluster_spec given and TF_CONFIG is not set")
        try:
            cluster, job, index = parse_tf_config(text)
        except ValueError as e:
            raise UsageError(str(e)) from None
        job = args.job_name or job
        index = args.task_index if args.task_index is not None else index
    if job not in cluster.jobs:
        raise UsageError(f"job '{job}' is not in the cluster (jobs: {', '.join(cluster.jobs)})")
    if index < 0 or index not in cluster.task_indices(job):
        raise UsageError(
            f"task index {index} is out of range for job '{job}' "
            f"(tasks: {cluster.task_indices(job)})"
        )
    return cluster, job, index


def serve(
    cluster: ClusterSpec,
    job: str,
    index: int,
    stop: threading.Event,
    metrics_port: ports.PortChoice,
    direct_port: str = "0",
    metrics_warning: str = "",
    termination_log: str = contract.TERMINATION_MESSAGE_PATH,
    options: ServerOptions | None = None,
    *,
    tls_files: tls.TLSFiles | None = None,
    metrics_address: str | None = None,
) -> int:
    """Runs the server until `stop` is set; the exit status."""
    try:
        server = Server(
            cluster,
            job_name=job,
            task_index=index,
            metrics_port=metrics_port,
            direct_port=direct_port,
            options=options,
            tls=tls_files,
            metrics_address=metrics_address,
        )
    except errors.OpError as e:
        report_fatal(f"tfcluster-server: {e.message}", termination_log)
        return EXIT_FAILED
    address = cluster.task_address(job, index)
    host = address.rpartition(":")[0] or "localhost"
    metrics = (
        "off" if server.metrics_port is None else f"http://{host}:{server.metrics_port}/metrics"
    )
    log.info(
        "tfcluster-server ready: /job:%s/task:%d at %s (port %d%s, metrics %s, pid %d)",
        job,
        index,
        address,
        server.port,
        ", mutual TLS" if server.tls is not None else "",
        metrics,
        os.getpid(),
    )
    if metrics_warning:
        log.warning("%s", metrics_warning)
    while not stop.wait(0.5):
        pass
    log.info("tfcluster-server stopping: /job:%s/task:%d", job, index)
    server.stop(grace=2.0)
    return 0


def main(
    argv: Sequence[str] | None = None,
    *,
    termination_log: str = contract.TERMINATION_MESSAGE_PATH,
) -> int:
    try:
        return _main(argv, termination_log)
    except Exception as e:  # the traceback follows on stderr; the kubelet gets the gist
        report_fatal(f"tfcluster-server: {type(e).__name__}: {e}", termination_log)
        raise


def _main(argv: Sequence[str] | None, termination_log: str) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=getattr(logging, str(args.log_level).upper(), logging.INFO),
        format="%(asctime)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )
    environ = os.environ
    try:
        cluster, job, index = resolve_task(args, environ)
        metrics_port, metrics_warning = resolve_metrics_port(args, environ)
        tls_files = resolve_tls(args, environ)
        metrics_address = resolve_metrics_address(args, environ)
    except UsageError as e:
        report_fatal(f"tfcluster-server: {e}", termination_log)
        return EXIT_USAGE
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    direct_port = resolve_direct_port(environ)
    try:
        options = server_options(args)
    except ValueError as e:
        report_fatal(f"tfcluster-server: {e}", termination_log)
        return EXIT_USAGE
    return serve(
        cluster,
        job,
        index,
        stop,
        metrics_port,
        direct_port,
        metrics_warning,
        termination_log,
        options,
        tls_files=tls_files,
        metrics_address=metrics_address,
    )


def server_options(args: argparse.Namespace) -> ServerOptions:
    """The ServerOptions the flags ask for (ValueError for values out of range)."""
    return ServerOptions(
        heartbeat_seconds=args.heartbeat_seconds,
        memory_budget_bytes=args.memory_budget_bytes,
        max_work_calls=args.max_work_calls,
        session_gc_seconds=args.session_gc_seconds,
        max_plans_per_session=args.max_plans_per_session,
        orphan_tensor_seconds=args.orphan_tensor_seconds,
    )


if __name__ == "__main__":
    sys.exit(main())
