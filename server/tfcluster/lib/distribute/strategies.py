"""The strategies of tf.distribute (TF 1.15, graph mode): where their replicas run and where
their variables live. Their machinery is strategy.StrategyExtended.

- MirroredStrategy: one replica per device of this process (default: the CPU when there is
  no GPU); every variable copied on each device, gradients summed across replicas.
- OneDeviceStrategy: one replica on one device.
- CentralStorageStrategy: replicas on this process's devices, variables once on one device.
- ParameterServerStrategy: between-graph; with a cluster in TF_CONFIG each worker runs its
  replicas and variables are spread over the ps tasks round-robin (replica_device_setter);
  without one, as CentralStorageStrategy.
- MultiWorkerMirroredStrategy: mirrored replicas on every worker of TF_CONFIG's cluster.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework.graph import colocate_with, device
from tfcluster.lib.distribute import cross_device_ops as cdo
from tfcluster.lib.distribute import device_util, reduce_util
from tfcluster.lib.distribute.collective_all_reduce import CollectiveAllReduce, CollectiveKeys
from tfcluster.lib.distribute.strategy import (
    CollectiveCommunication,
    SingleReplicaReduction,
    Strategy,
    StrategyExtended,
)
from tfcluster.runtime import gpu


def _local_devices() -> list[str]:
    """The GPUs of this process, or its CPU when it has none (TF's default devices)."""
    count = len(gpu.local_gpus())
    if count:
        return [f"/device:GPU:{i}" for i in range(count)]
    return ["/device:CPU:0"]


def _default_devices() -> list[str]:
    """TF 1.15's default devices in graph mode: with a cluster in TF_CONFIG, those of its chief
    and worker tasks (each task's CPU, or as many GPUs as this process has), else this
    process's own."""
    cluster = _cluster_dict(_resolver(None))
    local = _local_devices()
    devices = [
        f"/job:{job}/task:{task}{device}"
        for job in ("chief", "worker")
        for task in range(len(cluster.get(job, [])))
        for device in local
    ]
    return devices or local


class MirroredExtended(StrategyExtended):
    pass


class MirroredStrategy(Strategy):
    """Synchronous training on the devices of this process (or the given ones, which may name
    tasks of a cluster): variables mirrored on every device."""

    def __init__(
        self,
        devices: Sequence[str] | None = None,
        cross_device_ops: cdo.CrossDeviceOps | None = None,
    ) -> None:
        # As TF 1.15: no devices (None or empty) means the tasks of TF_CONFIG's cluster, or
        # without one this process's GPUs, else its CPU.
        from_cluster = not devices
        devices = list(devices or _default_devices())
        canonical = [device_util.canonicalize(d) for d in devices]
        if len(set(canonical)) != len(canonical):
            # TF 1.15 checks this with an assert: AssertionError is its class.
            raise AssertionError(f"No duplicates allowed in `devices` argument: {tuple(canonical)}")
        workers = sorted({d.split("/replica:")[0] for d in canonical if d.startswith("/job:")})
        tasks = {d.split("/device:")[0] for d in canonical if d.startswith("/job:")}
        if from_cluster and len(tasks) > 1:
            # TF 1.15 takes replicas on several tasks only with its MultiWorkerAllReduce, which
            # tf.distribute does not export (between-graph MultiWorkerMirroredStrategy it is).
            # Devices given on several tasks tfcluster does take: in-graph replication.
            raise ValueError(
                "In-graph multi-worker training with `MirroredStrategy` is not supported."
            )
        input_workers = [w + "/device:CPU:0" for w in workers] or ["/device:CPU:0"]
        if cross_device_ops is None and not workers:
            cdo.warn_as_choosing(canonical, len(gpu.local_gpus()))
        super().__init__(
            MirroredExtended(
                None, canonical, cross_device_ops=cross_device_ops, input_workers=input_workers
            )
        )
        self._extended._bind(self)


class OneDeviceExtended(SingleReplicaReduction, StrategyExtended):
    def update(
        self,
        var: Any,
        fn: Callable[..., Any],
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
        group: bool = True,
    ) -> Any:
        with device(self._compute_devices[0]), self._updating(0):
            result = fn(var, *args, **(kwargs or {}))
        return result if group else _local(result)

    def update_non_slot(
        self,
        colocate_with: Any,  # TF's parameter name
        fn: Callable[..., Any],
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
        group: bool = True,
    ) -> Any:
        del colocate_with  # one copy of each value: it is on the compute device
        with device(self._compute_devices[0]), self._updating(0):
            result = fn(*args, **(kwargs or {}))
        return result if group else _local(result)

    def non_slot_devices(self, var_list: Sequence[Any]) -> Any:
        return self._compute_devices[0]

    def _make_dataset_iterator(self, dataset: Any) -> Any:
        return self._experimental_distribute_dataset(dataset).make_initializable_iterator()

    def _experimental_distribute_dataset(self, dataset: Any) -> Any:
        from tfcluster.lib.distribute import input_lib

        return input_lib.DistributedDataset(
            dataset, self._compute_devices, self._input_workers[0], split=False
        )


def _local(result: Any) -> Any:
    from tfcluster.ops import nest

    return nest.map_structure(lambda x: (x,), result)


class OneDeviceStrategy(Strategy):
    """Everything on one device: variables are plain variables placed there."""

    def __init__(self, device: str) -> None:
        where = device_util.canonicalize(device)
        super().__init__(
            OneDeviceExtended(
                None,
                (where,),
                mirrored=False,
                variable_device=where,
                input_workers=["/device:CPU:0"],
            )
        )
        self._extended._bind(self)


class ParameterServerStrategyExtended(StrategyExtended):
    """Variables once (on a parameter device or the ps tasks), replicas on compute devices."""

    def _create_single(
        self, next_creator: Callable[..., Any], colocate: Any, kwargs: dict[str, Any]
    ) -> Any:
        if colocate is not None:
            with colocate_with(colocate):
                return next_creator(**kwargs)
        # As TF's colocate_with(None, ignore_existing=True): no colocation and no outer
        # device (the worker's default device must not pull variables off the ps).
        with (
            colocate_with(None, ignore_existing=True),
            device(None),
            device(self._variable_device),
        ):
            return next_creator(**kwargs)

    def _update_config_proto(self, config_proto: Any) -> Any:
        if self._between_graph and self._task_filters:
            del config_proto.device_filters[:]
            config_proto.device_filters.extend(self._task_filters)
        return config_proto

    _task_filters: tuple[str, ...] = ()


def _parameter_server_extended(
    compute_devices: Sequence[str] | None, parameter_device: str | None
) -> ParameterServerStrategyExtended:
    devices = list(compute_devices) if compute_devices else _local_devices()
    canonical = [device_util.canonicalize(d) for d in devices]
    if parameter_device is None:
        parameter_device = devices[0] if len(devices) == 1 else "/device:CPU:0"
    return ParameterServerStrategyExtended(
        None,
        canonical,
        parameter_devices=[parameter_device],
        mirrored=False,
        variable_device=parameter_device,
        cross_device_ops=cdo.ReductionToOneDevice(reduce_to_device="/device:CPU:0"),
        input_workers=["/device:CPU:0"],
    )


class CentralStorageStrategy(Strategy):
    """Replicas on this process's devices; each variable once, on the parameter device."""

    def __init__(
        self, compute_devices: Sequence[str] | None = None, parameter_device: str | None = None
    ) -> None:
        super().__init__(_parameter_server_extended(compute_devices, parameter_device))
        self._extended._bind(self)


def _resolver(cluster_resolver: Any) -> Any:
    if cluster_resolver is None:
        from tfcluster.lib.cluster_resolver import TFConfigClusterResolver

        cluster_resolver = TFConfigClusterResolver()
    return cluster_resolver


def _cluster_dict(cluster_resolver: Any) -> dict[str, Any]:
    spec = cluster_resolver.cluster_spec()
    return dict(spec.as_dict()) if spec else {}


class ParameterServerStrategy(Strategy):
    """Asynchronous between-graph training: each worker builds its own graph and session;
    variables are placed on the ps tasks round-robin. As TF 1.15's v1 class: without a
    cluster_resolver it is local (as CentralStorageStrategy) until `configure` gives it a
    cluster (Estimator's distribute coordinator does that from TF_CONFIG)."""

    def __init__(self, cluster_resolver: Any = None) -> None:
        super().__init__(_parameter_server_extended(None, None))
        self._extended._bind(self)
        if cluster_resolver is not None:
            cluster = _cluster_dict(cluster_resolver)
            if cluster:
                _to_multi_worker(
                    self._extended, cluster, cluster_resolver.task_type, cluster_resolver.task_id
                )

    def configure(
        self,
        session_config: Any = None,
        cluster_spec: Any = None,
        task_type: str | None = None,
        task_id: int | None = None,
    ) -> None:
        if cluster_spec:
            spec = cluster_spec.as_dict() if hasattr(cluster_spec, "as_dict") else cluster_spec
            _to_multi_worker(self._extended, dict(spec), task_type, task_id)
        super().configure(session_config, None, task_type, task_id)


def _to_multi_worker(
    ext: StrategyExtended, cluster: dict[str, Any], task_type: str | None, task_id: int | None
) -> None:
    """Makes `ext` a worker of `cluster`: replicas on the task's CPU, variables spread over
    the ps tasks by replica_device_setter."""
    from tfcluster.training.device_setter import replica_device_setter

    if task_type is None or task_id is None:
        raise ValueError(
            "When `cluster_spec` is given, you must also specify `task_type` and `task_id`."
        )
    if "ps" not in cluster:
        raise ValueError("No parameter server in the cluster spec: it needs a 'ps' job.")
    worker_device = f"/job:{task_type}/task:{task_id}"
    num_ps = len(cluster["ps"])
    ext._compute_devices = (device_util.canonicalize(worker_device + "/device:CPU:0"),)
    ext._parameter_devices = tuple(f"/job:ps/task:{i}" for i in range(num_ps))
    ext._variable_device = replica_device_setter(
        ps_tasks=num_ps, worker_device=worker_device, merge_devices=True, cluster=cluster
    )
    ext._default_device = worker_device
    ext._between_graph = True
    ext._input_workers = (worker_device + "/device:CPU:0",)
    ext._is_chief = _is_chief(cluster, task_type, task_id)
    ext._task_filters = (worker_device, "/job:ps")  # type: ignore[attr-defined]
    if task_type in ("chief", "worker"):
        # TF's multi_worker_util.worker_count / id_in_cluster: the chief's pipeline is 0.
        chiefs = len(cluster.get("chief", ()))
        ext._input_pipelines = (
            chiefs + len(cluster.get("worker", ())),
            0 if task_type == "chief" else task_id + chiefs,
        )


def _is_chief(cluster: dict[str, Any], task_type: str, task_id: int) -> bool:
    if "chief" in cluster:
        return task_type == "chief"
    return (task_type in ("worker", "master") and task_id == 0) or task_type == "chief"


class CollectiveAllReduceExtended(StrategyExtended):
    """Mirrored replicas on every worker of the cluster, each worker with its own graph, as
    TF 1.15's: every reduction is one CollectiveReduce per replica over all the workers'
    replicas (CollectiveAllReduce), and the initial value of a variable is the chief's,
    broadcast with CollectiveBcastSend / CollectiveBcastRecv. Keys are counted in
    graph-building order, so every worker must build the same graph (as in TF)."""

    _collective_keys: CollectiveKeys
    _leader = ""

    def _collective_ops(self) -> CollectiveAllReduce:
        ops = self._cross_device_ops
        assert isinstance(ops, CollectiveAllReduce)
        return ops

    def reduce_to(self, reduce_op: Any, value: Any, destinations: Any) -> Any:
        from tfcluster.lib.distribute import values as values_lib

        reduce_op = reduce_util.check(reduce_op)
        if isinstance(value, values_lib.Mirrored) and reduce_op == reduce_util.ReduceOp.MEAN:
            return value
        if isinstance(value, values_lib.DistributedValues) and len(self._compute_devices) == 1:
            value = value.values[0]
        if not isinstance(value, values_lib.DistributedValues) and self._num_workers == 1:
            return cdo.reduce_non_distributed_value(
                reduce_op, len(self._compute_devices), value, destinations
            )
        if isinstance(destinations, str) and self._default_device and "/job:" not in destinations:
            # A device of this worker (TF canonicalizes it within the worker's device).
            destinations = device_util.canonicalize(self._default_device + destinations)
        return self._collective_ops().reduce(reduce_op, value, destinations)

    def batch_reduce_to(
        self, reduce_op: Any, value_destination_pairs: Sequence[tuple[Any, Any]]
    ) -> list[Any]:
        return self._collective_ops().batch_reduce(
            reduce_util.check(reduce_op), list(value_destination_pairs)
        )

    def _create_mirrored(
        self, next_creator: Callable[..., Any], colocate: Any, kwargs: dict[str, Any]
    ) -> Any:
        # Every variable, slots too (created colocated with theirs), as TF.
        devices = getattr(colocate, "devices", None) or self._compute_devices
        kwargs["initial_value"] = self._chiefs_value(
            kwargs["initial_value"], kwargs.get("dtype"), devices[0]
        )
        return super()._create_mirrored(next_creator, colocate, kwargs)

    def _chiefs_value(self, initial_value: Any, dtype: Any, where: str) -> Callable[[], Any]:
        """The initial value of the first replica of each worker: the chief's, broadcast (TF:
        CollectiveAllReduceExtended._get_variable_creator_initial_value)."""
        from tfcluster.framework.graph import control_dependencies, convert_to_tensor
        from tfcluster.ops import array_ops, collective_ops

        def value() -> Any:
            group_key = self._collective_keys.get_group_key([where])
            group_size = self._num_workers
            instance_key = self._collective_keys.get_variable_instance_key()
            with device(where):
                own = initial_value() if callable(initial_value) else initial_value
                own = convert_to_tensor(own, dtype=dtype)
                if self._num_workers > 1:
                    if self._is_chief:
                        send = collective_ops.broadcast_send(
                            own, own.shape, own.dtype, group_size, group_key, instance_key
                        )
                        with control_dependencies([send]):
                            return array_ops.identity(own)
                    return collective_ops.broadcast_recv(
                        own.shape, own.dtype, group_size, group_key, instance_key
                    )
                return own

        return value

    def _configure(
        self, session_config: Any, cluster_spec: Any, task_type: str | None, task_id: int | None
    ) -> None:
        if cluster_spec:
            spec = cluster_spec.as_dict() if hasattr(cluster_spec, "as_dict") else cluster_spec
            _to_collective_worker(self, dict(spec), task_type, task_id)
        if session_config is not None:
            session_config.CopyFrom(self._update_config_proto(session_config))

    def _update_config_proto(self, config_proto: Any) -> Any:
        # As TF: the collective group leader, and a session that sees only its own task
        # (workers meet through collective ops, never through graph edges).
        config_proto = copy.deepcopy(config_proto)
        if self._leader:
            config_proto.experimental.collective_group_leader = self._leader
            del config_proto.device_filters[:]
            config_proto.device_filters.append(self._default_device)
        return config_proto


class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous training with mirrored variables on every worker of the cluster (the
    cluster of `cluster_resolver`, TF_CONFIG's, or the one `configure` gives, as TF 1.15's
    distribute coordinator does)."""

    def __init__(
        self,
        communication: Any = CollectiveCommunication.AUTO,
        *,  # TF 2.x's, beyond TF 1.15's signature
        cluster_resolver: Any = None,
    ) -> None:
        if not isinstance(communication, CollectiveCommunication):
            raise ValueError(f"Unexpected communication value: {communication!r}")
        self._communication = communication
        resolver = _resolver(cluster_resolver)
        cluster = _cluster_dict(resolver)
        keys = CollectiveKeys()
        ext = CollectiveAllReduceExtended(
            None,
            [device_util.canonicalize(d) for d in _local_devices()],
            cross_device_ops=CollectiveAllReduce(1, len(gpu.local_gpus()), 32, keys),
            input_workers=["/device:CPU:0"],
        )
        ext._collective_keys = keys
        if cluster:
            _to_collective_worker(ext, cluster, resolver.task_type, resolver.task_id)
        super().__init__(ext)
        self._extended._bind(self)


def _to_collective_worker(
    ext: CollectiveAllReduceExtended,
    cluster: dict[str, Any],
    task_type: str | None,
    task_id: int | None,
) -> None:
    """Makes `ext` one worker of `cluster`: its replica on the task's CPU, reductions over
    every worker (the chief and the workers) with collective ops."""
    if task_type is None or task_id is None:
        raise ValueError(
            "When `cluster_spec` is given, you must also specify `task_type` and `task_id`."
        )
    workers = len(cluster.get("chief", ())) + len(cluster.get("worker", ()))
    index = task_id + (len(cluster.get("chief", ())) if task_type == "worker" else 0)
    worker_device = f"/job:{task_type}/task:{task_id}"
    ext._compute_devices = (device_util.canonicalize(worker_device + "/device:CPU:0"),)
    ext._parameter_devices = ext._compute_devices
    ext._cross_device_ops = CollectiveAllReduce(workers, 0, 32, ext._collective_keys)
    ext._num_workers = workers
    ext._worker_index = index
    ext._default_device = worker_device
    ext._between_graph = True
    ext._input_workers = (worker_device + "/device:CPU:0",)
    ext._is_chief = _is_chief(cluster, task_type, task_id)
    leader = "chief" if "chief" in cluster else "worker"
    ext._leader = f"/job:{leader}/replica:0/task:0"


# TF 1.15's tf.distribute classes are its V1 ones: their names show in reprs and messages
# (`'MirroredStrategyV1' object has no attribute 'run'`).
for _cls, _tf_name in (
    (Strategy, "StrategyV1"),
    (StrategyExtended, "StrategyExtendedV1"),
    (MirroredStrategy, "MirroredStrategyV1"),
    (OneDeviceStrategy, "OneDeviceStrategyV1"),
    (CentralStorageStrategy, "CentralStorageStrategyV1"),
    (ParameterServerStrategy, "ParameterServerStrategyV1"),
    (MultiWorkerMirroredStrategy, "CollectiveAllReduceStrategyV1"),
):
    _cls.__name__ = _cls.__qualname__ = _tf_name


__all__ = [
    "CentralStorageStrategy",
    "MirroredStrategy",
    "MultiWorkerMirroredStrategy",
    "OneDeviceStrategy",
    "ParameterServerStrategy",
]
