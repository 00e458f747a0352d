"""RunConfig (TF 1.15): where and how an Estimator runs. The cluster and this task come from
TF_CONFIG (the JSON the operator injects: {"cluster": {...}, "task": {"type", "index"}}),
with TF's rules for chief, worker, ps and evaluator tasks."""

from __future__ import annotations

import copy
import json
from typing import Any

from tfcluster.distributed.cluster_spec import ClusterSpec
from tfcluster.lib.platform import tf_logging as logging
from tfcluster.protos.config_pb2 import ConfigProto, GraphOptions, RewriterConfig
from tfcluster.settings import environment


def get_default_session_config() -> ConfigProto:
    """TF 1.15's run_config.get_default_session_config: what an Estimator runs with when its
    RunConfig has no session_config."""
    rewrite = RewriterConfig(meta_optimizer_iterations=RewriterConfig.ONE)
    return ConfigProto(
        allow_soft_placement=True, graph_options=GraphOptions(rewrite_options=rewrite)
    )


class TaskType:
    MASTER = "master"
    PS = "ps"
    WORKER = "worker"
    CHIEF = "chief"
    EVALUATOR = "evaluator"


_DEFAULTS = dict(
    model_dir=None,
    tf_random_seed=None,
    save_summary_steps=100,
    save_checkpoints_steps=None,
    save_checkpoints_secs=600,
    session_config=None,
    keep_checkpoint_max=5,
    keep_checkpoint_every_n_hours=10000,
    log_step_count_steps=100,
    train_distribute=None,
    device_fn=None,
    protocol=None,
    eval_distribute=None,
    experimental_distribute=None,
    experimental_max_worker_delay_secs=None,
    session_creation_timeout_secs=7200,
)


def _tf_config() -> dict[str, Any]:
    raw = environment.tf_config()
    if not raw:
        return {}
    try:
        parsed = json.loads(raw)
    except ValueError as e:
        raise ValueError(f"TF_CONFIG is not valid JSON: {e}") from None
    if not isinstance(parsed, dict):
        raise ValueError(f"TF_CONFIG must be a JSON object, got {raw!r}")
    return parsed


def _count(cluster: ClusterSpec | None, job: str) -> int:
    return cluster.num_tasks(job) if cluster is not None and job in cluster.jobs else 0


class RunConfig:
    # Set (as an attribute of the instance, which vars() and the Estimator's "Using config"
    # line show) only where the distribute coordinator takes over, as TF's.
    _distribute_coordinator_mode: str | None = None
    # Set from _DEFAULTS and the keyword arguments in __init__.
    _model_dir: Any
    _tf_random_seed: Any
    _save_summary_steps: Any
    _save_checkpoints_steps: Any
    _save_checkpoints_secs: Any
    _session_config: Any
    _keep_checkpoint_max: Any
    _keep_checkpoint_every_n_hours: Any
    _log_step_count_steps: Any
    _train_distribute: Any
    _device_fn: Any
    _protocol: Any
    _eval_distribute: Any
    _experimental_distribute: Any
    _experimental_max_worker_delay_secs: Any
    _session_creation_timeout_secs: Any

    def __init__(self, **kwargs: Any) -> None:
        unknown = set(kwargs) - set(_DEFAULTS)
        if unknown:
            raise TypeError(f"RunConfig got unexpected arguments: {sorted(unknown)}")
        values = {**_DEFAULTS, **kwargs}
        if (
            kwargs.get("save_checkpoints_steps") is not None
            and "save_checkpoints_secs" not in kwargs
        ):
            values["save_checkpoints_secs"] = None
        if (
            values["save_checkpoints_steps"] is not None
            and values["save_checkpoints_secs"] is not None
        ):
            raise ValueError(
                "Can not provide both save_checkpoints_steps and save_checkpoints_secs."
            )
        for k, v in values.items():
            setattr(self, "_" + k, v)
        tf_config = _tf_config()
        if tf_config:
            logging.info("TF_CONFIG environment variable: %s", tf_config)
        if self._train_distribute or self._eval_distribute or self._experimental_distribute:
            self._init_with_strategies(tf_config)
        else:
            self._init_distributed(tf_config)
            self._maybe_default_session_config_distributed()

    def _maybe_default_session_config_distributed(self) -> None:
        """TF's default for between-graph training; a local RunConfig keeps None (the
        Estimator then takes get_default_session_config())."""
        if not self._session_config and self._cluster_spec.jobs:
            self._session_config = self._default_session_config_distributed()

    # -- the cluster --------------------------------------------------------------------
    def _init_with_strategies(self, tf_config: dict[str, Any]) -> None:
        """TF 1.15's estimator_training.init_run_config: with a train_distribute strategy and
        a cluster without a `master` job, the distribute coordinator (INDEPENDENT_WORKER mode)
        sets each task up in train_and_evaluate; here the config stays local but for the
        cluster spec."""
        from tfcluster.lib.distribute.distribute_coordinator import CoordinatorMode
        from tfcluster.lib.estimator.estimator_training import uses_distribute_coordinator

        logging.info("Initializing RunConfig with distribution strategies.")
        experimental = self._experimental_distribute
        for name in ("train_distribute", "eval_distribute"):
            if experimental is not None and getattr(experimental, name, None):
                if getattr(self, "_" + name):
                    raise ValueError(
                        f"Either `{name}` or`experimental_distribute.{name}` can be set."
                    )
                setattr(self, "_" + name, getattr(experimental, name))
        cluster = tf_config.get("cluster") or {}
        self._init_distributed({})
        if not uses_distribute_coordinator(cluster, self._train_distribute, experimental):
            self._distribute_coordinator_mode = None
            self._init_distributed(tf_config)
            self._maybe_default_session_config_distributed()
            logging.info("Not using Distribute Coordinator.")
            return
        self._cluster_spec = ClusterSpec(cluster)
        self._distribute_coordinator_mode = CoordinatorMode.INDEPENDENT_WORKER
        logging.info(
            "RunConfig initialized for Distribute Coordinator with INDEPENDENT_WORKER mode"
        )

    def _init_distributed(self, tf_config: dict[str, Any]) -> None:
        # The attributes are set in TF's order (vars() of a config is what the Estimator logs).
        cluster_dict = tf_config.get("cluster") or {}
        task = tf_config.get("task") or {}
        self._service = None
        self._cluster_spec = ClusterSpec(cluster_dict) if cluster_dict else ClusterSpec({})
        if not cluster_dict:
            self._task_type = task.get("type", TaskType.WORKER)
            self._task_id = int(task.get("index", 0))
            evaluator = self._task_type == TaskType.EVALUATOR
            self._global_id_in_cluster = None if evaluator else 0
            self._master = ""
            self._evaluation_master = ""
            self._is_chief = not evaluator
            self._num_ps_replicas = 0
            self._num_worker_replicas = 0 if evaluator else 1
            return
        if "type" not in task:
            raise ValueError("If cluster is set in TF_CONFIG, task type must be set.")
        if "index" not in task:
            raise ValueError("If cluster is set in TF_CONFIG, task index must be set.")
        task_type, task_id = task["type"], int(task["index"])
        if task_id < 0:
            raise ValueError("Task index must be non-negative number.")
        cluster = self._cluster_spec
        if TaskType.EVALUATOR in cluster.jobs:
            raise ValueError(
                "If `cluster` is set in TF_CONFIG, `evaluator` should not be set in the "
                "`cluster`; the evaluator is not part of the training cluster."
            )
        self._task_type, self._task_id = task_type, task_id
        with_master = TaskType.MASTER in cluster.jobs
        if not with_master:
            self._evaluation_master = ""  # (its place among the attributes, as TF's)
        if task_type == TaskType.EVALUATOR:
            if task_id != 0:
                raise ValueError(f"evaluator task index must be 0, got {task_id}")
            self._master = ""
            self._num_ps_replicas = 0
            self._num_worker_replicas = 0
            self._global_id_in_cluster = None
            self._is_chief = False
            return
        if task_type not in cluster.jobs:
            raise ValueError(
                f"{task_type} is not a valid task_type in the cluster_spec:\n{cluster}"
            )
        if task_id >= cluster.num_tasks(task_type):
            raise ValueError(f"{task_id} is not a valid task_id for task_type {task_type}")
        if TaskType.CHIEF in cluster.jobs:
            if cluster.num_tasks(TaskType.CHIEF) != 1:
                raise ValueError("The cluster spec must have exactly one chief task.")
            is_chief = task_type == TaskType.CHIEF
        else:
            if TaskType.MASTER not in cluster.jobs and TaskType.WORKER in cluster.jobs:
                raise ValueError("If `cluster` is set in TF_CONFIG, it must have one `chief` node.")
            is_chief = task_type == TaskType.MASTER
        if with_master:  # TF's other path sets the global id first
            self._global_id_in_cluster = self._global_id(cluster, task_type, task_id)
        jobs = cluster.jobs
        single = len(jobs) == 1 and cluster.num_tasks(jobs[0]) == 1
        self._master = "" if single else "grpc://" + cluster.task_address(task_type, task_id)
        if with_master:
            self._evaluation_master = ""
        self._num_ps_replicas = _count(cluster, TaskType.PS)
        self._num_worker_replicas = (
            _count(cluster, TaskType.WORKER)
            + _count(cluster, TaskType.CHIEF)
            + _count(cluster, TaskType.MASTER)
        )
        self._global_id_in_cluster = self._global_id(cluster, task_type, task_id)
        self._is_chief = is_chief

    @staticmethod
    def _global_id(cluster: ClusterSpec, task_type: str, task_id: int) -> int:
        # chief first, then the other jobs in sorted order, ps last (TF's RunConfig).
        others = sorted(j for j in cluster.jobs if j not in (TaskType.CHIEF, TaskType.PS))
        order = [TaskType.CHIEF, *others, TaskType.PS]
        gid = 0
        for job in order:
            if job not in cluster.jobs:
                continue
            if job == task_type:
                return gid + task_id
            gid += cluster.num_tasks(job)
        raise ValueError(f"{task_type} not in cluster")

    def _default_session_config_distributed(self) -> ConfigProto | None:
        """TF's default for a task of a cluster: only the ps tasks and itself seen (None for
        an evaluator or a task of another kind)."""
        if self._task_type in (TaskType.CHIEF, TaskType.MASTER):
            filters = ["/job:ps", f"/job:{self._task_type}"]
        elif self._task_type == TaskType.WORKER:
            filters = ["/job:ps", f"/job:worker/task:{self._task_id}"]
        elif self._task_type == TaskType.PS:
            filters = ["/job:ps", "/job:worker", "/job:chief", "/job:master"]
        else:
            return None
        config = get_default_session_config()
        config.device_filters.extend(filters)
        return config

    # -- TF's read-only properties ------------------------------------------------------
    cluster_spec = property(lambda self: self._cluster_spec)
    task_type = property(lambda self: self._task_type)
    task_id = property(lambda self: self._task_id)
    master = property(lambda self: self._master)
    evaluation_master = property(lambda self: self._evaluation_master)
    is_chief = property(lambda self: self._is_chief)
    num_ps_replicas = property(lambda self: self._num_ps_replicas)
    num_worker_replicas = property(lambda self: self._num_worker_replicas)
    global_id_in_cluster = property(lambda self: self._global_id_in_cluster)
    model_dir = property(lambda self: self._model_dir)
    tf_random_seed = property(lambda self: self._tf_random_seed)
    save_summary_steps = property(lambda self: self._save_summary_steps)
    save_checkpoints_steps = property(lambda self: self._save_checkpoints_steps)
    save_checkpoints_secs = property(lambda self: self._save_checkpoints_secs)
    session_config = property(lambda self: self._session_config)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_every_n_hours = property(lambda self: self._keep_checkpoint_every_n_hours)
    log_step_count_steps = property(lambda self: self._log_step_count_steps)
    train_distribute = property(lambda self: self._train_distribute)
    eval_distribute = property(lambda self: self._eval_distribute)
    device_fn = property(lambda self: self._device_fn)
    protocol = property(lambda self: self._protocol)
    experimental_max_worker_delay_secs = property(
        lambda self: self._experimental_max_worker_delay_secs
    )
    session_creation_timeout_secs = property(lambda self: self._session_creation_timeout_secs)
    service = property(lambda self: None)

    def replace(self, **kwargs: Any) -> RunConfig:
        """A copy with the given settings changed (the cluster stays as TF_CONFIG set it)."""
        unknown = set(kwargs) - set(_DEFAULTS)
        if unknown:
            raise ValueError(f"Replacing {sorted(unknown)} is not supported.")
        new = copy.deepcopy(self)
        if "save_checkpoints_steps" in kwargs and kwargs["save_checkpoints_steps"] is not None:
            kwargs.setdefault("save_checkpoints_secs", None)
        if "save_checkpoints_secs" in kwargs and kwargs["save_checkpoints_secs"] is not None:
            kwargs.setdefault("save_checkpoints_steps", None)
        for k, v in kwargs.items():
            setattr(new, "_" + k, v)
        if new._save_checkpoints_steps is not None and new._save_checkpoints_secs is not None:
            raise ValueError(
                "Can not provide both save_checkpoints_steps and save_checkpoints_secs."
            )
        return new
