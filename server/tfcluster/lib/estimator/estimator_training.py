"""Estimator under the distribute coordinator, as TF 1.15's tensorflow/python/distribute/
estimator_training.py: RunConfig picks INDEPENDENT_WORKER mode when it has a
train_distribute strategy and TF_CONFIG a cluster without a `master` job; then
train_and_evaluate runs each task's part through the coordinator, with a copy of the
estimator whose config is the task's (from the worker context)."""

from __future__ import annotations

import copy
from typing import Any

from tfcluster.distributed.cluster_spec import ClusterSpec
from tfcluster.lib.distribute import distribute_coordinator as dc
from tfcluster.lib.platform import tf_logging as logging

CHIEF, EVALUATOR, PS, WORKER, MASTER = "chief", "evaluator", "ps", "worker", "master"


def _count(cluster: ClusterSpec, job: str) -> int:
    return cluster.num_tasks(job) if job in cluster.jobs else 0


def _global_id(cluster: ClusterSpec, task_type: str | None, task_id: int | None) -> int:
    if not task_type:
        return 0
    order = [CHIEF] if CHIEF in cluster.jobs else []
    order += [t for t in sorted(cluster.jobs) if t not in (CHIEF, PS)]
    if PS in cluster.jobs:
        order.append(PS)
    next_id = 0
    for t in order:
        if t == task_type:
            return next_id + (task_id or 0)
        next_id += cluster.num_tasks(t)
    raise RuntimeError(
        f"Internal Error: `task_type` ({task_type}) is not in cluster_spec ({cluster})."
    )


def init_run_config_from_worker_context(config: Any, context: dc.WorkerContext) -> None:
    """The task's settings, from the coordinator's worker context."""
    config._service = None
    config._cluster_spec = context.cluster_spec
    config._task_type = context.task_type
    config._task_id = context.task_id
    config._evaluation_master = context.master_target
    config._master = context.master_target
    config._is_chief = context.is_chief
    cluster = config._cluster_spec
    if cluster:
        if config._task_type != EVALUATOR:
            config._num_ps_replicas = _count(cluster, PS)
            config._num_worker_replicas = _count(cluster, WORKER) + _count(cluster, CHIEF)
            config._global_id_in_cluster = _global_id(cluster, config._task_type, config._task_id)
        else:  # the evaluator knows no other task
            config._cluster_spec = ClusterSpec({})
            config._num_ps_replicas = 0
            config._num_worker_replicas = 0
            config._global_id_in_cluster = None
    else:
        config._global_id_in_cluster = 0
        config._num_ps_replicas = 0
        config._num_worker_replicas = 1


def uses_distribute_coordinator(
    cluster: dict[str, Any], train_distribute: Any, experimental_distribute: Any
) -> bool:
    """Whether RunConfig hands the cluster to the coordinator (INDEPENDENT_WORKER mode)."""
    if train_distribute is not None and getattr(experimental_distribute, "remote_cluster", None):
        from tfcluster.framework import errors

        raise errors.UnimplementedError(
            None,
            None,
            "experimental_distribute.remote_cluster (the STANDALONE_CLIENT distribute "
            "coordinator) is not implemented in tfcluster",
        )
    return bool(cluster) and MASTER not in cluster and bool(train_distribute)


def should_run_distribute_coordinator(config: Any) -> bool:
    mode = getattr(config, "_distribute_coordinator_mode", None)
    if mode is None:
        logging.info("Not using Distribute Coordinator.")
        return False
    if mode not in (dc.CoordinatorMode.STANDALONE_CLIENT, dc.CoordinatorMode.INDEPENDENT_WORKER):
        logging.warning("Unexpected distribute_coordinator_mode: %r", mode)
        return False
    if not config.cluster_spec:
        logging.warning(
            "Running `train_and_evaluate` locally, ignoring "
            "`experimental_distribute_coordinator_mode`."
        )
        return False
    return True


def train_and_evaluate(estimator: Any, train_spec: Any, eval_spec: Any, run_evaluator: Any) -> None:
    """This task's part of train_and_evaluate through the coordinator (returns None, as TF)."""
    run_config = estimator.config
    if not run_config._distribute_coordinator_mode:
        raise ValueError("Distribute coordinator mode is not specified in `RunConfig`.")

    def _worker_fn(strategy: Any) -> None:
        local_estimator = copy.deepcopy(estimator)
        local_estimator._config._train_distribute = strategy
        context = dc.get_current_worker_context()
        assert context is not None
        init_run_config_from_worker_context(local_estimator._config, context)
        logging.info("Updated config: %s", str(vars(local_estimator._config)))
        # Estimator.train must not go back to the coordinator.
        local_estimator._config._distribute_coordinator_mode = None
        local_estimator.train(
            input_fn=train_spec.input_fn,
            max_steps=train_spec.max_steps,
            hooks=list(train_spec.hooks),
        )

    def _eval_fn(strategy: Any) -> None:
        local_estimator = copy.deepcopy(estimator)
        local_estimator._config._eval_distribute = strategy
        context = dc.get_current_worker_context()
        assert context is not None
        init_run_config_from_worker_context(local_estimator._config, context)
        logging.info("Updated config: %s", str(vars(local_estimator._config)))
        local_estimator._config._distribute_coordinator_mode = None
        run_evaluator(local_estimator, train_spec, eval_spec)

    dc.run_distribute_coordinator(
        _worker_fn,
        run_config.train_distribute,
        _eval_fn,
        run_config.eval_distribute,
        mode=run_config._distribute_coordinator_mode,
        cluster_spec=None,
        session_config=run_config.session_config,
    )


def check_direct_call(config: Any, method: str) -> None:
    """Estimator.train / evaluate under INDEPENDENT_WORKER mode: TF refuses both."""
    if EVALUATOR in config.cluster_spec.jobs:
        raise ValueError("'evaluator' job is not supported if you don't use `train_and_evaluate`")
    raise ValueError(f"Only `STANDALONE_CLIENT` mode is supported when you call {method}")
