"""Every environment variable the tfcluster library reads, in this one module.

The commands (cli/) read their own environment at the edge and pass values down; the
library reads these variables here, when it uses them, so that a program (or a test) may
set them before it starts a session or a server:

  TFCLUSTER_DIRECT=0          keep every call on gRPC: no direct streams served or used
                              (any process: sessions, servers)
  TFCLUSTER_SHM=0             never pass large tensors through /dev/shm (any process)
  TFCLUSTER_MALLOC_TUNING=0   keep glibc's malloc thresholds (any process that runs a
                              session or a server); so does MALLOC_MMAP_THRESHOLD_ or
                              MALLOC_TRIM_THRESHOLD_ set by someone else
  TFCLUSTER_SWITCH_INTERVAL   the GIL switch interval, in seconds, of a process that hosts a
                              task server (runtime/switch_interval.py); "off" keeps Python's
  TFCLUSTER_METRICS_PORT      for a program's own tf.train.Server that is given no
  TFCLUSTER_DIRECT_PORT       metrics_port / direct_port (settings/contract.py: set by the
                              operator and by `tfcluster run` for the tasks it starts)
  TFCLUSTER_TLS_CERT          mutual TLS (rpc/tls.py): this process's certificate, its key
  TFCLUSTER_TLS_KEY           and the cluster's CA, PEM files; every connection this process
  TFCLUSTER_TLS_CA            makes shows the certificate, and a program's own
                              tf.train.Server not given tls= serves with them (any process)
  TFCLUSTER_METRICS_ADDRESS   where a program's own tf.train.Server binds its /metrics
  TFCLUSTER_CPU_MILLICORES    the task's CPU budget (the operator's downward API): caps the
                              default thread pools (runtime/thread_budget.py)

and the variables TensorFlow itself reads, with its meaning:

  TF_FORWARD_COMPATIBILITY_DELTA_DAYS   moves tf.compat's forward-compatibility horizon
  TEST_TMPDIR                 where tf.test.get_temp_dir makes its folder
  TF_DEVICE_FOR_UNINITIALIZED_VARIABLE_REPORTING   the device report_uninitialized_variables
                              places its ops on ("/cpu:0" unset)
  TF_CONFIG                   the cluster and this task, as JSON (tf.estimator.RunConfig,
                              TFConfigClusterResolver)
  GRPC_VERBOSITY              gRPC's log level: `import tfcluster` sets ERROR unless it is set
                              (gRPC's core reads it once, when grpc is imported)
  SLURM_PROCID, SLURM_NTASKS, SLURM_NTASKS_PER_NODE, SLURM_STEP_NODELIST, SLURM_JOB_NODELIST,
  OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE   the Slurm job step (SlurmClusterResolver), which
                              also sets CUDA_VISIBLE_DEVICES to the GPUs of this task
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from tfcluster.settings import contract

DIRECT_ENV = "TFCLUSTER_DIRECT"
SHM_ENV = "TFCLUSTER_SHM"
MALLOC_TUNING_ENV = "TFCLUSTER_MALLOC_TUNING"
# glibc's own tunables: whoever set one has chosen already.
GLIBC_MALLOC_ENV = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")
SWITCH_INTERVAL_ENV = "TFCLUSTER_SWITCH_INTERVAL"


def _env(environ: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if environ is None else environ


def direct_streams_enabled(environ: Mapping[str, str] | None = None) -> bool:
    return _env(environ).get(DIRECT_ENV, "1") != "0"


def shm_enabled(environ: Mapping[str, str] | None = None) -> bool:
    return _env(environ).get(SHM_ENV, "1") != "0"


def malloc_tuning_wanted(environ: Mapping[str, str] | None = None) -> bool:
    env = _env(environ)
    if env.get(MALLOC_TUNING_ENV, "1") == "0":
        return False
    return not any(name in env for name in GLIBC_MALLOC_ENV)


def switch_interval(default: float, environ: Mapping[str, str] | None = None) -> float | None:
    """TFCLUSTER_SWITCH_INTERVAL in seconds: `default` when unset, None for "off"; a value
    that is not a positive number is an error a person can act on."""
    raw = _env(environ).get(SWITCH_INTERVAL_ENV, "").strip()
    if not raw:
        return default
    if raw.lower() == "off":
        return None
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise ValueError(
            f'{SWITCH_INTERVAL_ENV}={raw!r}: expected seconds (a positive number) or "off"'
        )
    return value


def program_metrics_port(environ: Mapping[str, str] | None = None) -> str:
    """TFCLUSTER_METRICS_PORT as written ('' when unset)."""
    return _env(environ).get(contract.METRICS_PORT_ENV, "").strip()


def program_direct_port(environ: Mapping[str, str] | None = None) -> str | None:
    """TFCLUSTER_DIRECT_PORT as written (None when unset)."""
    return _env(environ).get(contract.DIRECT_PORT_ENV)


def tls_files(environ: Mapping[str, str] | None = None) -> tuple[str, str, str] | None:
    """(TFCLUSTER_TLS_CERT, _KEY, _CA) as written ('' for one unset); None when none is set."""
    env = _env(environ)
    names = (contract.TLS_CERT_ENV, contract.TLS_KEY_ENV, contract.TLS_CA_ENV)
    values = tuple(env.get(name, "").strip() for name in names)
    if not any(values):
        return None
    return values[0], values[1], values[2]


def program_metrics_address(environ: Mapping[str, str] | None = None) -> str:
    """TFCLUSTER_METRICS_ADDRESS as written ('' when unset)."""
    return _env(environ).get(contract.METRICS_ADDRESS_ENV, "").strip()


def cpu_budget_millicores(environ: Mapping[str, str] | None = None) -> int | None:
    """TFCLUSTER_CPU_MILLICORES as a positive number (None when unset or not one)."""
    raw = _env(environ).get(contract.CPU_BUDGET_ENV, "").strip()
    try:
        value = int(float(raw))
    except ValueError:
        return None
    return value if value > 0 else None


FORWARD_COMPATIBILITY_DELTA_DAYS_ENV = "TF_FORWARD_COMPATIBILITY_DELTA_DAYS"
TEST_TMPDIR_ENV = "TEST_TMPDIR"


def forward_compatibility_delta_days(environ: Mapping[str, str] | None = None) -> str:
    """TF_FORWARD_COMPATIBILITY_DELTA_DAYS as written ('' when unset)."""
    return _env(environ).get(FORWARD_COMPATIBILITY_DELTA_DAYS_ENV, "")


def test_tmpdir(environ: Mapping[str, str] | None = None) -> str:
    """TEST_TMPDIR as written ('' when unset)."""
    return _env(environ).get(TEST_TMPDIR_ENV, "")


UNINITIALIZED_REPORTING_DEVICE_ENV = "TF_DEVICE_FOR_UNINITIALIZED_VARIABLE_REPORTING"


def uninitialized_reporting_device(environ: Mapping[str, str] | None = None) -> str:
    """The device report_uninitialized_variables places its ops on ("/cpu:0" unset)."""
    return _env(environ).get(UNINITIALIZED_REPORTING_DEVICE_ENV, "/cpu:0")


TEST_REPORT_FILE_PREFIX_ENV = "TEST_REPORT_FILE_PREFIX"
TEST_SRCDIR_ENV = "TEST_SRCDIR"


def test_report_file_prefix(environ: Mapping[str, str] | None = None) -> str | None:
    """TEST_REPORT_FILE_PREFIX (where tf.test.Benchmark writes its entries), None unset."""
    return _env(environ).get(TEST_REPORT_FILE_PREFIX_ENV)


def test_srcdir(environ: Mapping[str, str] | None = None) -> str:
    """TEST_SRCDIR (bazel's runfiles root for tf.test.test_src_dir_path); KeyError unset,
    as TF's os.environ lookup."""
    return _env(environ)[TEST_SRCDIR_ENV]


TF_CPP_MIN_LOG_LEVEL_ENV = "TF_CPP_MIN_LOG_LEVEL"


def tf_cpp_min_log_level(environ: Mapping[str, str] | None = None) -> int:
    """TF_CPP_MIN_LOG_LEVEL: the least severity of TF's C++-style log lines shown (0: INFO and
    up, 1: WARNING and up, ...); 0 when unset or not a number, as TF reads it."""
    try:
        return int(_env(environ).get(TF_CPP_MIN_LOG_LEVEL_ENV, "0") or 0)
    except ValueError:
        return 0


TF_CONFIG_ENV = "TF_CONFIG"


def tf_config(environ: Mapping[str, str] | None = None) -> str:
    """TF_CONFIG as written ('' when unset)."""
    return _env(environ).get(TF_CONFIG_ENV, "")


# Slurm's job step variables (and Open MPI's rank, for steps launched by mpirun), as
# tf.distribute.cluster_resolver.SlurmClusterResolver reads them.
SLURM_ENV = (
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE",
    "SLURM_PROCID",
    "SLURM_NTASKS",
    "SLURM_NTASKS_PER_NODE",
    "SLURM_STEP_NODELIST",
    "SLURM_JOB_NODELIST",
)
CUDA_VISIBLE_DEVICES_ENV = "CUDA_VISIBLE_DEVICES"


def slurm_variables(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The Slurm (and mpirun) variables that are set, as written."""
    env = _env(environ)
    return {name: env[name] for name in SLURM_ENV if name in env}


def set_cuda_visible_devices(devices: str) -> None:
    """Hides all GPUs but these from CUDA in this process (SlurmClusterResolver's auto_set_gpu)."""
    os.environ[CUDA_VISIBLE_DEVICES_ENV] = devices


GRPC_VERBOSITY_ENV = "GRPC_VERBOSITY"


def quiet_grpc_by_default() -> None:
    """gRPC's core logs transport events (a peer going away) at INFO, and a task leaving the
    cluster is normal here; TensorFlow's own gRPC prints nothing then. Called before grpc is
    imported (it reads the level once); a user's setting wins."""
    os.environ.setdefault(GRPC_VERBOSITY_ENV, "ERROR")
