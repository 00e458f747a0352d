"""tf.estimator.tpu configuration: InputPipelineConfig, TPUConfig and the TPU RunConfig."""

from __future__ import annotations

import collections
import re
from typing import Any

from tfcluster.lib.estimator import run_config
from tfcluster.lib.estimator.run_config import RunConfig as _BaseRunConfig
from tfcluster.protos.config_pb2 import ConfigProto

_ITERATIONS_RE = re.compile(r"^(?P<value>[1-9]\d*)((?P<suffix>[s|m|h])$|$)")
IterationsPerLoop = collections.namedtuple("IterationsPerLoop", ["value", "unit"])


class InputPipelineConfig:
    """The input pipeline deployments TPUConfig.per_host_input_for_training names."""

    PER_SHARD_V1 = 1
    PER_HOST_V1 = 2
    PER_HOST_V2 = 3
    BROADCAST = 4
    SLICED = 5


def check_positive_integer(value: Any, name: str) -> None:
    if not isinstance(value, int):
        raise TypeError(f"{name} must be int, got {type(value)}")
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value}")


def parse_iterations_per_loop(iterations_per_loop: Any) -> IterationsPerLoop:
    """A count ("100", 100) or a duration ("30s", "5m", "1h") as seconds."""
    m = _ITERATIONS_RE.match(str(iterations_per_loop))
    if m is None:
        raise ValueError(
            "Invalid TPUConfig `iterations_per_loop` value. Value must be positive integer "
            "value or time-based value `<N><s|m|h>` where <N> is anypositive integer and `s`, "
            "`m`, `h` are unit of time in seconds, minutes, hours respectively. Examples of "
            "valid values: `3600s`, `60m`, `1h`."
        )
    value = int(m.group("value")) * {"m": 60, "h": 3600}.get(m.group("suffix") or "", 1)
    return IterationsPerLoop(value, "seconds" if m.group("suffix") else "count")


def _tpu_job_name_from_tf_config() -> str | None:
    tf_config = run_config._tf_config()  # read through the settings edge, checked as there
    name: str | None = tf_config.get("service", {}).get("tpu_worker_job_name")
    return name


_TPUConfigBase = collections.namedtuple(  # type: ignore[name-match]
    "TPUConfig",
    [
        "iterations_per_loop",
        "num_shards",
        "num_cores_per_replica",
        "per_host_input_for_training",
        "tpu_job_name",
        "initial_infeed_sleep_secs",
        "input_partition_dims",
        "eval_training_input_configuration",
        "experimental_host_call_every_n_steps",
    ],
)


class TPUConfig(_TPUConfigBase):
    """TPU settings, validated as TF 1.15 validates them (they also apply without a TPU)."""

    def __new__(
        cls,
        iterations_per_loop: Any = 2,
        num_shards: int | None = None,
        num_cores_per_replica: int | None = None,
        per_host_input_for_training: Any = True,
        tpu_job_name: str | None = None,
        initial_infeed_sleep_secs: int | None = None,
        input_partition_dims: Any = None,
        eval_training_input_configuration: int = InputPipelineConfig.PER_HOST_V1,
        experimental_host_call_every_n_steps: int = 1,
    ) -> TPUConfig:
        parse_iterations_per_loop(iterations_per_loop)
        if num_shards is not None:
            check_positive_integer(num_shards, "TPUConfig num_shards")
        if input_partition_dims is not None:
            if len(input_partition_dims) not in (1, 2):
                raise ValueError(
                    "input_partition_dims must be a list/tuple with one or two elements."
                )
            if per_host_input_for_training is not InputPipelineConfig.PER_HOST_V2:
                raise ValueError("input_partition_dims is only supported in PER_HOST_V2 mode.")
            if num_cores_per_replica is None:
                raise ValueError("input_partition_dims requires setting num_cores_per_replica.")
        if num_cores_per_replica is not None and num_cores_per_replica not in (
            1, 2, 4, 8, 16, 32, 64, 128,
        ):  # fmt: skip
            raise ValueError(
                f"num_cores_per_replica must be 1, 2, 4, 8, 16, 32, 64, 128; got "
                f"{num_cores_per_replica}"
            )
        if eval_training_input_configuration not in (
            InputPipelineConfig.PER_HOST_V1,
            InputPipelineConfig.SLICED,
        ):
            raise ValueError(
                "eval_training_input_configuration must be PER_HOST_V1 or SLICED; got "
                f"{eval_training_input_configuration}"
            )
        # The legacy booleans name PER_SHARD_V1 / PER_HOST_V1 (identity: 1 and 0 stay as given).
        if per_host_input_for_training is False:
            per_host_input_for_training = InputPipelineConfig.PER_SHARD_V1
        elif per_host_input_for_training is True:
            per_host_input_for_training = InputPipelineConfig.PER_HOST_V1
        if initial_infeed_sleep_secs:
            check_positive_integer(initial_infeed_sleep_secs, "TPUConfig initial_infeed_sleep_secs")
        return super().__new__(
            cls,
            iterations_per_loop=iterations_per_loop,
            num_shards=num_shards,
            num_cores_per_replica=num_cores_per_replica,
            per_host_input_for_training=per_host_input_for_training,
            tpu_job_name=tpu_job_name or _tpu_job_name_from_tf_config(),
            initial_infeed_sleep_secs=initial_infeed_sleep_secs,
            input_partition_dims=input_partition_dims,
            eval_training_input_configuration=eval_training_input_configuration,
            experimental_host_call_every_n_steps=experimental_host_call_every_n_steps,
        )


class RunConfig(_BaseRunConfig):
    """tf.estimator.RunConfig with tpu_config, master, evaluation_master and cluster."""

    def __init__(
        self,
        tpu_config: TPUConfig | None = None,
        evaluation_master: str | None = None,
        master: str | None = None,
        cluster: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._tpu_config = tpu_config or TPUConfig()
        self._cluster = cluster
        if master is not None:
            if cluster is not None:
                raise ValueError("Both master and cluster are set.")
            self._master = master
        elif cluster:
            self._master = cluster.master()
        if evaluation_master is not None:
            self._evaluation_master = evaluation_master
        elif not self._evaluation_master and self.task_type != "evaluator":
            # Without a cluster manager, evaluation goes to the training master.
            self._evaluation_master = self._master
        if cluster:
            self._cluster_spec = cluster.cluster_spec()
            if self._session_config is None:  # TF's default where the cluster_def goes
                self._session_config = ConfigProto(
                    allow_soft_placement=True, isolate_session_state=True
                )
            if self._session_config.HasField("cluster_def"):
                raise ValueError(
                    "You cannot provide a ClusterResolver and session_config.cluster_def."
                )
            if self._cluster_spec:
                self._session_config.cluster_def.CopyFrom(self._cluster_spec.as_cluster_def())

    evaluation_master = property(lambda self: self._evaluation_master)
    master = property(lambda self: self._master)
    tpu_config = property(lambda self: self._tpu_config)
    cluster = property(lambda self: self._cluster)

    def replace(self, **kwargs: Any) -> RunConfig:
        if "tpu_config" not in kwargs:
            new: RunConfig = super().replace(**kwargs)  # type: ignore[assignment]
            return new
        tpu_config = kwargs.pop("tpu_config")
        new = super().replace(**kwargs)  # type: ignore[assignment]
        new._tpu_config = tpu_config
        return new
