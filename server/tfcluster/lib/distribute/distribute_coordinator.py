"""TF 1.15's distribute coordinator in INDEPENDENT_WORKER mode (tensorflow/python/distribute/
distribute_coordinator.py): what Estimator's train_and_evaluate runs when RunConfig has a
train_distribute strategy and TF_CONFIG a cluster without a `master` job. Each task starts
its standard server; a chief or worker configures its copy of the strategy for its task and
runs the worker function inside a worker context (MonitoredTrainingSession reads it), an
evaluator runs the evaluation function, a ps task serves."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from tfcluster.distributed.cluster_spec import ClusterSpec
from tfcluster.lib.platform import tf_logging as logging
from tfcluster.protos.config_pb2 import ConfigProto
from tfcluster.settings import environment
from tfcluster.training import distribute_coordinator_context

CHIEF, WORKER, PS, EVALUATOR = "chief", "worker", "ps", "evaluator"


class CoordinatorMode:
    STANDALONE_CLIENT = "standalone_client"
    INDEPENDENT_WORKER = "independent_worker"


def get_current_worker_context() -> WorkerContext | None:
    context: WorkerContext | None = distribute_coordinator_context.get_current_worker_context()
    return context


def normalize_cluster_spec(cluster_spec: Any) -> ClusterSpec:
    if isinstance(cluster_spec, ClusterSpec):
        return cluster_spec
    if hasattr(cluster_spec, "as_dict"):
        return ClusterSpec(cluster_spec.as_dict())
    return ClusterSpec(dict(cluster_spec or {}))


def _num_workers(cluster_spec: ClusterSpec | None) -> int:
    if not cluster_spec or not cluster_spec.jobs:
        return 0
    jobs = cluster_spec.as_dict()
    return len(jobs.get(WORKER, [])) + len(jobs.get(CHIEF, []))


class WorkerContext:
    """One task's view of the cluster while its worker (or evaluation) function runs."""

    def __init__(
        self,
        strategy: Any,
        cluster_spec: ClusterSpec | None,
        task_type: str | None,
        task_id: int | None,
        session_config: Any = None,
        rpc_layer: str = "grpc",
    ) -> None:
        self._strategy = strategy
        self._cluster_spec = cluster_spec
        self._task_type = task_type
        self._task_id = task_id
        self._session_config = session_config
        self._rpc_layer = rpc_layer
        self._master_target = self._get_master_target()
        self._num_workers = _num_workers(cluster_spec)
        self._is_chief_node = self._is_chief()

    def __enter__(self) -> WorkerContext:
        if get_current_worker_context() is not None:
            raise ValueError("You cannot run distribute coordinator in a `worker_fn`.")
        distribute_coordinator_context.set_current_worker_context(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        distribute_coordinator_context.set_current_worker_context(None)

    def _get_master_target(self) -> str:
        if not self._cluster_spec or not self._cluster_spec.jobs:
            return ""
        task_type, task_id = self._task_type, self._task_id
        if not task_type:  # in-graph: the chief's (or first worker's) master
            task_type = CHIEF if CHIEF in self._cluster_spec.jobs else WORKER
            task_id = 0
        prefix = self._rpc_layer + "://" if self._rpc_layer else ""
        address = str(self._cluster_spec.job_tasks(task_type)[task_id or 0])
        return prefix + address

    def _is_chief(self) -> bool:
        if not self._cluster_spec or self._task_type in (CHIEF, EVALUATOR, None):
            return True
        return CHIEF not in self._cluster_spec.jobs and (
            self._task_type == WORKER and self._task_id == 0
        )

    def wait_for_other_workers(self) -> None:
        # No barrier in INDEPENDENT_WORKER mode (TF returns at once too).
        return

    def session_creator(
        self,
        scaffold: Any = None,
        config: Any = None,
        checkpoint_dir: str | None = None,
        checkpoint_filename_with_path: str | None = None,
        max_wait_secs: float = 7200,
    ) -> Any:
        """A ChiefSessionCreator when the strategy has every worker initialise (collective
        strategies), else a WorkerSessionCreator, on this task's master."""
        from tfcluster.training import monitored_session

        if config:
            session_config = copy.deepcopy(config)
            if self._session_config is not None:
                session_config.MergeFrom(self._session_config)
        else:
            session_config = self._session_config
        if not self._strategy or self._strategy.extended.experimental_should_init:
            logging.info("Creating chief session creator with config: %r", config)
            return monitored_session.ChiefSessionCreator(
                scaffold,
                master=self.master_target,
                config=session_config,
                checkpoint_dir=checkpoint_dir,
                checkpoint_filename_with_path=checkpoint_filename_with_path,
            )
        logging.info("Creating worker session creator with config: %r", config)
        return monitored_session.WorkerSessionCreator(
            scaffold, master=self.master_target, config=session_config, max_wait_secs=max_wait_secs
        )

    session_config = property(lambda self: copy.deepcopy(self._session_config))
    has_barrier = property(lambda self: False)
    distributed_mode = property(
        lambda self: bool(self._cluster_spec) and self._task_type != EVALUATOR
    )
    cluster_spec = property(lambda self: copy.deepcopy(self._cluster_spec))
    task_type = property(lambda self: self._task_type)
    task_id = property(lambda self: self._task_id)
    master_target = property(lambda self: self._master_target)
    is_chief = property(lambda self: self._is_chief_node)
    num_workers = property(lambda self: self._num_workers)

    @property
    def experimental_should_init(self) -> bool:
        return bool(self._strategy.extended.experimental_should_init)

    @property
    def should_checkpoint(self) -> bool:
        return bool(self._strategy.extended.should_checkpoint)

    @property
    def should_save_summary(self) -> bool:
        return bool(self._strategy.extended.should_save_summary)


def _run_single_worker(
    worker_fn: Callable[[Any], Any],
    strategy: Any,
    cluster_spec: ClusterSpec | None,
    task_type: str | None,
    task_id: int | None,
    session_config: Any,
    rpc_layer: str = "",
) -> Any:
    session_config = copy.deepcopy(session_config)
    strategy = copy.deepcopy(strategy)
    if task_type == EVALUATOR:
        if strategy:
            strategy.configure(session_config)
    else:
        strategy.configure(session_config, cluster_spec, task_type, task_id)
    with WorkerContext(
        strategy,
        cluster_spec,
        task_type,
        task_id,
        session_config=session_config,
        rpc_layer=rpc_layer,
    ):
        return worker_fn(strategy)


def _split_cluster_for_evaluator(cluster_spec: ClusterSpec, task_type: str) -> ClusterSpec:
    # The evaluator's server knows only the evaluator; the others' servers leave it out.
    jobs = dict(cluster_spec.as_dict())
    if task_type == EVALUATOR:
        jobs = {EVALUATOR: jobs[EVALUATOR]}
    else:
        jobs.pop(EVALUATOR, None)
    return ClusterSpec(jobs)


def _configure_session_config_for_std_servers(
    strategy: Any,
    eval_strategy: Any,
    session_config: Any,
    cluster_spec: ClusterSpec,
    task_type: str,
    task_id: int,
) -> None:
    if task_type == EVALUATOR:
        if eval_strategy:
            eval_strategy.configure(session_config=session_config)
    else:
        copy.deepcopy(strategy).configure(
            session_config=session_config,
            cluster_spec=cluster_spec,
            task_type=task_type,
            task_id=task_id,
        )
    # The server serves any strategy: the strategy's device filters go to clients only.
    del session_config.device_filters[:]


def _run_std_server(
    cluster_spec: ClusterSpec, task_type: str, task_id: int, session_config: Any, rpc_layer: str
) -> Any:
    from tfcluster.task_server.server import Server

    target = cluster_spec.task_address(task_type, task_id)
    logging.info(
        "Starting standard TensorFlow server, target = %r, session_config= %r",
        (rpc_layer + "://" if rpc_layer else "") + target,
        session_config,
    )
    server = Server(
        _split_cluster_for_evaluator(cluster_spec, task_type),
        job_name=task_type,
        task_index=task_id,
        config=session_config,
        protocol=rpc_layer or None,
    )
    return server


def run_distribute_coordinator(
    worker_fn: Callable[[Any], Any],
    strategy: Any,
    eval_fn: Callable[[Any], Any] | None = None,
    eval_strategy: Any = None,
    mode: str = CoordinatorMode.STANDALONE_CLIENT,
    cluster_spec: Any = None,
    task_type: str | None = None,
    task_id: int | None = None,
    session_config: Any = None,
    rpc_layer: str = "grpc",
) -> Any:
    """Runs `worker_fn` (or, on an evaluator, `eval_fn`) as this task of the cluster."""
    tf_config = json.loads(environment.tf_config() or "{}")
    if not cluster_spec:
        cluster_spec = tf_config.get("cluster", {})
        task_env = tf_config.get("task", {})
        if task_env:
            task_type = task_env.get("type", task_type)
            task_id = int(task_env.get("index", task_id))
    spec = normalize_cluster_spec(cluster_spec) if cluster_spec else None
    rpc_layer = tf_config.get("rpc_layer", rpc_layer)
    environment_name = tf_config.get("environment", None)
    session_config = session_config or ConfigProto(allow_soft_placement=True)
    if spec:
        logging.info(
            "Running Distribute Coordinator with mode = %r, cluster_spec = %r, task_type = %r, "
            "task_id = %r, environment = %r, rpc_layer = %r",
            mode,
            spec.as_dict(),
            task_type,
            task_id,
            environment_name,
            rpc_layer,
        )
    if not spec:
        logging.info("Running local Distribute Coordinator.")
        _run_single_worker(worker_fn, strategy, None, None, None, session_config, rpc_layer)
        if eval_fn:
            _run_single_worker(eval_fn, eval_strategy, None, None, None, session_config, rpc_layer)
        else:
            logging.warning("Skipped evaluation since `eval_fn` is not passed in.")
        return None
    if mode != CoordinatorMode.INDEPENDENT_WORKER:
        from tfcluster.framework import errors

        raise errors.UnimplementedError(
            None, None, f"Distribute coordinator mode {mode!r} is not implemented in tfcluster"
        )
    if not eval_fn:
        logging.warning(
            "`eval_fn` is not passed in. The `worker_fn` will be used if an "
            '"evaluator" task exists in the cluster.'
        )
    eval_fn = eval_fn or worker_fn
    if not eval_strategy:
        logging.warning(
            "`eval_strategy` is not passed in. No distribution strategy will be used for "
            "evaluation."
        )
    assert task_type is not None and task_id is not None
    _configure_session_config_for_std_servers(
        strategy, eval_strategy, session_config, spec, task_type, task_id
    )
    server = _run_std_server(spec, task_type, task_id, session_config, rpc_layer)
    if task_type in (CHIEF, WORKER):
        if strategy.extended.experimental_between_graph:
            return _run_single_worker(
                worker_fn, strategy, spec, task_type, task_id, session_config, rpc_layer
            )
        if WorkerContext(strategy, spec, task_type, task_id).is_chief:
            return _run_single_worker(
                worker_fn, strategy, spec, None, None, session_config, rpc_layer
            )
        server.join()
        return None
    if task_type == EVALUATOR:
        return _run_single_worker(
            eval_fn, eval_strategy, spec, task_type, task_id, session_config, rpc_layer
        )
    if task_type != PS:
        raise ValueError(f"Unexpected task_type: {task_type!r}")
    server.join()
    return None
