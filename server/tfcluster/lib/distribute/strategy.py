"""tf.distribute.Strategy, StrategyExtended and ReplicaContext (TF 1.15's distribute_lib, in
graph mode), with the default strategy that is in force outside every strategy scope.

One StrategyExtended implementation serves every strategy here; what differs is given to it:
the replicas' devices on this worker, whether variables are mirrored (one copy per replica
device) or live once (on a parameter device or spread over ps tasks), and the CrossDeviceOps
that combines the replicas' values.
"""

from __future__ import annotations

import contextlib
import enum
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import (
    Tensor,
    colocate_with,
    device,
    get_default_graph,
    init_scope,
    name_scope,
)
from tfcluster.lib.distribute import cross_device_ops as cdo
from tfcluster.lib.distribute import input_lib, numpy_dataset, reduce_util
from tfcluster.lib.distribute import values as values_lib
from tfcluster.lib.distribute.replica_runner import ReplicaRunner, cross_replica
from tfcluster.ops import array_ops, constant_op, math_ops, nest, variable_creators
from tfcluster.ops.control_flow_ops import group as group_ops
from tfcluster.ops.variables import VariableAggregation, VariableSynchronization
from tfcluster.training import distribution_context

InputContext = input_lib.InputContext
InputReplicationMode = input_lib.InputReplicationMode


# ---- the current strategy -------------------------------------------------------------
def get_strategy() -> Strategy:
    ctx = distribution_context.current()
    return _default_strategy() if ctx is None else ctx.strategy  # type: ignore[no-any-return]


def has_strategy() -> bool:
    return distribution_context.has_strategy()


def in_cross_replica_context() -> bool:
    return distribution_context.in_cross_replica_context()


def get_replica_context() -> ReplicaContext | None:
    """The ReplicaContext of the replica being built; None in cross-replica context; outside
    every strategy, the default strategy's single replica."""
    ctx = distribution_context.current()
    if ctx is None:
        return _default_replica_context()
    return ctx.replica_context  # type: ignore[no-any-return]


def get_cross_replica_context() -> Strategy | None:
    ctx = distribution_context.current()
    if ctx is None:
        return None
    return ctx.strategy if ctx.replica_context is None else None  # type: ignore[no-any-return]


def get_loss_reduction() -> reduce_util.ReduceOp:
    """MEAN while an Estimator trains under the strategy and the last tf.losses loss was not a
    plain sum; SUM otherwise (the optimizer then leaves the loss unscaled)."""
    if distribution_context.loss_reduction_is_mean():
        return reduce_util.ReduceOp.MEAN
    return reduce_util.ReduceOp.SUM


_GLOBAL_SCOPES: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def experimental_set_strategy(strategy: Strategy | None) -> None:
    """Makes `strategy` the current one for the default graph (None: the default again)."""
    graph = get_default_graph()
    old = _GLOBAL_SCOPES.pop(graph, None)
    if old is not None:
        old.__exit__(None, None, None)
    if has_strategy():
        raise RuntimeError("Must not be called inside a `tf.distribute.Strategy` scope.")
    if strategy is not None:
        scope = strategy.scope()
        scope.__enter__()
        _GLOBAL_SCOPES[graph] = scope


# ---- ReplicaContext ---------------------------------------------------------------------
# update_non_slot's parameter is named colocate_with, as TF's: the function under another name.
_colocate_with = colocate_with


class ReplicaContext:
    """What code built for one replica sees: its id, the strategy, merge_call, all_reduce."""

    def __init__(
        self,
        strategy: Strategy,
        replica_id_in_sync_group: Any,
        local_index: int = 0,
        thread: Any = None,
    ) -> None:
        self._strategy = strategy
        self._local_index = local_index
        self._thread = thread
        # As TF: the id is a constant made when the replica starts building.
        if isinstance(replica_id_in_sync_group, Tensor):
            self._replica_id_in_sync_group = replica_id_in_sync_group
        else:
            self._replica_id_in_sync_group = constant_op.constant(
                replica_id_in_sync_group, dtypes.int32
            )
        self._context = distribution_context.Context(strategy, self)

    def __enter__(self) -> ReplicaContext:
        distribution_context.push(self._context)
        return self

    def __exit__(self, *exc: Any) -> None:
        distribution_context.pop(self._context)

    @property
    def num_replicas_in_sync(self) -> int:
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> Tensor:
        return self._replica_id_in_sync_group

    @property
    def strategy(self) -> Strategy:
        return self._strategy

    @property
    def devices(self) -> tuple[str, ...]:
        return (self._strategy.extended._compute_devices[self._local_index],)

    def merge_call(
        self,
        merge_fn: Callable[..., Any],
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        """Runs merge_fn(strategy, *args) once, in cross-replica context, with each argument
        the PerReplica of what every replica passed; returns this replica's part."""
        if distribution_context.current() is not self._context:
            raise RuntimeError("`merge_call` called while not in this replica context.")
        kwargs = kwargs or {}
        if self._thread is not None:
            return self._thread.wait_for_merge(merge_fn, tuple(args), kwargs)
        with cross_replica(self._strategy):
            result = merge_fn(self._strategy, *args, **kwargs)
        return values_lib.select_replica(self._local_index, result)

    def all_reduce(self, reduce_op: Any, value: Any) -> Any:
        """Every replica gets the reduction (SUM/MEAN) of `value` over all replicas."""
        reduce_op = reduce_util.check(reduce_op)
        flat = nest.flatten(value)

        def batch_all_reduce(strategy: Strategy, *per_replica: Any) -> Any:
            return strategy.extended.batch_reduce_to(reduce_op, [(v, v) for v in per_replica])

        reduced = self.merge_call(batch_all_reduce, args=flat)
        return nest.pack_sequence_as(value, list(reduced))


# ---- Strategy -------------------------------------------------------------------------
class _StrategyScope:
    def __init__(self, strategy: Strategy) -> None:
        self._strategy = strategy
        self._stack: contextlib.ExitStack | None = None

    def __enter__(self) -> Strategy:
        current = distribution_context.current()
        if current is not None and current.strategy is not self._strategy:
            raise RuntimeError(
                f"Mixing different tf.distribute.Strategy objects: {self._strategy} is not "
                f"{current.strategy}"
            )
        stack = contextlib.ExitStack()
        if current is None:
            ctx = distribution_context.Context(self._strategy)
            distribution_context.push(ctx)
            stack.callback(distribution_context.pop, ctx)
            ext = self._strategy.extended
            stack.enter_context(variable_creators.variable_creator_scope(ext._variable_creator))
            if ext._default_device:
                stack.enter_context(device(ext._default_device))
        self._stack = stack
        return self._strategy

    def __exit__(self, *exc: Any) -> None:
        assert self._stack is not None
        self._stack.close()
        self._stack = None


class Strategy:
    """A way to run a model's replicas: create variables in `scope()`, build each replica's
    part with `experimental_run_v2`, combine results with `reduce`."""

    def __init__(self, extended: StrategyExtended) -> None:
        self._extended = extended
        # An Estimator sets this while it trains: the optimizer then scales MEAN losses.
        self._scale_loss_for_estimator = False

    @property
    def extended(self) -> StrategyExtended:
        return self._extended

    @property
    def num_replicas_in_sync(self) -> int:
        return self._extended._num_replicas_in_sync

    def scope(self) -> _StrategyScope:
        return _StrategyScope(self)

    # ---- running replicas -------------------------------------------------------------
    def experimental_run_v2(
        self, fn: Callable[..., Any], args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        with self.scope():
            return self._extended.call_for_each_replica(fn, args=args, kwargs=kwargs)

    def experimental_run(self, fn: Callable[..., Any], input_iterator: Any = None) -> Any:
        with self.scope():
            args = (input_iterator.get_next(),) if input_iterator is not None else ()
            return self.experimental_run_v2(fn, args=args)

    def reduce(self, reduce_op: Any, value: Any, axis: int | None = None) -> Any:
        reduce_op = reduce_util.check(reduce_op)
        with self.scope():
            if axis is None:
                return self._extended._reduce(reduce_op, value)
            if reduce_op == reduce_util.ReduceOp.SUM:
                summed = self.experimental_run_v2(
                    lambda v: math_ops.reduce_sum(v, axis=axis), args=(value,)
                )
                return self._extended._reduce(reduce_op, summed)

            if not isinstance(axis, int):
                raise TypeError(f"Expected `axis` to be an integer not: {axis!r}")

            def mean_parts(v: Any, axis: int = axis) -> tuple[Tensor, Any]:
                # As TF: a static size along `axis` is a Python int (so several replicas
                # give one int, which a SUM across replicas then refuses, as TF 1.15 does).
                numer = math_ops.reduce_sum(v, axis=axis)
                rank = v.shape.rank
                if rank is not None:
                    if not -rank <= axis < rank:
                        raise ValueError(
                            f"`axis` = {axis!r} out of range for `value` with rank {rank}"
                        )
                    axis %= rank
                    dim = v.shape[axis]
                    dim = getattr(dim, "value", dim)
                    if dim is not None:
                        return numer, int(dim)
                if rank == 1:
                    return numer, array_ops.size(v, out_type=dtypes.int64)
                return numer, array_ops.shape(v, out_type=dtypes.int64)[axis]

            numer, denom = self.experimental_run_v2(mean_parts, args=(value,))
            numer = self._extended._reduce(reduce_util.ReduceOp.SUM, numer)
            denom = self._extended._reduce(reduce_util.ReduceOp.SUM, denom)
            return math_ops.truediv(numer, math_ops.cast(denom, numer.dtype))

    def experimental_local_results(self, value: Any) -> tuple[Any, ...]:
        return values_lib.local_results(value)

    def unwrap(self, value: Any) -> tuple[Any, ...]:
        return values_lib.local_results(value)

    def group(self, value: Any, name: str | None = None) -> Any:
        return self._extended._group(value, name)

    # ---- input ----------------------------------------------------------------------------
    def make_dataset_iterator(self, dataset: Any) -> input_lib.DistributedIterator:
        return self._extended._make_dataset_iterator(dataset)

    def make_input_fn_iterator(
        self, input_fn: Callable[..., Any], replication_mode: Any = InputReplicationMode.PER_WORKER
    ) -> input_lib.DistributedIterator:
        if replication_mode != InputReplicationMode.PER_WORKER:
            raise ValueError(f"Input replication mode not supported: {replication_mode!r}")
        with self.scope():
            return self._extended._make_input_fn_iterator(input_fn)

    def experimental_distribute_dataset(self, dataset: Any) -> input_lib.DistributedDataset:
        return self._extended._experimental_distribute_dataset(dataset)

    def experimental_distribute_datasets_from_function(
        self, dataset_fn: Callable[..., Any]
    ) -> input_lib.DistributedDataset:
        return self._extended._distribute_datasets_from_function(dataset_fn)

    def experimental_make_numpy_dataset(self, numpy_input: Any, session: Any = None) -> Any:
        return self._extended.experimental_make_numpy_dataset(numpy_input, session=session)

    # ---- configuration ----------------------------------------------------------------------
    def configure(
        self,
        session_config: Any = None,
        cluster_spec: Any = None,
        task_type: str | None = None,
        task_id: int | None = None,
    ) -> None:
        self._extended._configure(session_config, cluster_spec, task_type, task_id)

    def update_config_proto(self, config_proto: Any) -> Any:
        return self._extended._update_config_proto(config_proto)

    def colocate_vars_with(self, colocate_with_variable: Any) -> Any:
        return self._extended.colocate_vars_with(colocate_with_variable)

    def __deepcopy__(self, memo: Any) -> Strategy:
        # Estimator's RunConfig deep-copies its distribute settings; a strategy is shared.
        return self


# ---- StrategyExtended -----------------------------------------------------------------------
class StrategyExtended:
    """The strategy's machinery: variable creation and placement, reduce/update, devices.

    compute_devices: this worker's replica devices; mirrored: variables copied on each of
    them (else one variable, placed by `variable_device`); num_workers/worker_index: the
    replicas of other workers that take part in a reduction (collective strategies).
    """

    def __init__(
        self,
        container_strategy: Strategy | None,
        compute_devices: Sequence[str],
        parameter_devices: Sequence[str] | None = None,
        mirrored: bool = True,
        variable_device: Any = None,
        cross_device_ops: cdo.CrossDeviceOps | None = None,
        num_workers: int = 1,
        worker_index: int = 0,
        default_device: str | None = None,
        between_graph: bool = False,
        input_workers: Sequence[str] | None = None,
    ) -> None:
        self._container_strategy_weakref: Callable[[], Any] = (
            weakref.ref(container_strategy) if container_strategy is not None else (lambda: None)
        )
        self._compute_devices = tuple(compute_devices)
        self._parameter_devices = tuple(parameter_devices or compute_devices)
        self._mirrored = mirrored
        self._variable_device = variable_device
        self._cross_device_ops = cross_device_ops
        self._num_workers = num_workers
        self._worker_index = worker_index
        self._default_device = default_device
        self._between_graph = between_graph
        self._input_workers = tuple(input_workers or ("/device:CPU:0",))
        self._is_chief = worker_index == 0
        # (input pipelines, this one's id) when they are not the workers of the replicas: a
        # ParameterServerStrategy worker has its own replicas but reads one of all workers'
        # pipelines.
        self._input_pipelines: tuple[int, int] | None = None

    def _container_strategy(self) -> Strategy:
        strategy = self._container_strategy_weakref()
        assert strategy is not None
        return strategy  # type: ignore[no-any-return]

    def _bind(self, strategy: Strategy) -> None:
        self._container_strategy_weakref = weakref.ref(strategy)

    @property
    def _num_replicas_in_sync(self) -> int:
        return len(self._compute_devices) * self._num_workers

    def _replica_id_offset(self) -> int:
        return self._worker_index * len(self._compute_devices)

    def _get_cross_device_ops(self) -> cdo.CrossDeviceOps:
        if self._cross_device_ops is None:
            self._cross_device_ops = cdo.choose_the_best(self._compute_devices)
        return self._cross_device_ops

    # ---- variables --------------------------------------------------------------------------
    def experimental_make_numpy_dataset(self, numpy_input: Any, session: Any = None) -> Any:
        """The dataset of numpy_input's rows from variables on the host's CPU, filled in
        `session` (numpy_dataset.one_host_numpy_dataset, as TF 1.15's)."""
        if session is None:
            raise ValueError("experimental_make_numpy_dataset needs a session in graph mode")
        host = numpy_dataset.SingleDevice("/device:CPU:0")
        return numpy_dataset.one_host_numpy_dataset(numpy_input, host, session)

    def _variable_creator(self, next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        colocate = kwargs.pop("colocate_with", None)
        # Every variable made in a strategy's scope is a resource variable (TF 1.15's
        # creator_with_resource_vars).
        kwargs["use_resource"] = True
        if isinstance(colocate, numpy_dataset.SingleDevice):
            with device(colocate.device):
                return next_creator(**kwargs)
        if self._mirrored:
            v = self._create_mirrored(next_creator, colocate, kwargs)
        else:
            v = self._create_single(next_creator, colocate, kwargs)
        v._distribute_strategy = self._container_strategy()
        return v

    def _create_single(
        self, next_creator: Callable[..., Any], colocate: Any, kwargs: dict[str, Any]
    ) -> Any:
        if colocate is not None:
            with colocate_with(colocate):
                return next_creator(**kwargs)
        where = self._variable_device
        if where is None:
            return next_creator(**kwargs)
        with device(where):
            return next_creator(**kwargs)

    def _create_mirrored(
        self, next_creator: Callable[..., Any], colocate: Any, kwargs: dict[str, Any]
    ) -> Any:
        devices = self._compute_devices
        if colocate is not None and isinstance(colocate, values_lib.MirroredVariable):
            devices = colocate.devices
        collections = kwargs.pop("collections", None)
        if collections is None:
            collections = ["variables"]
        collections = list(collections)
        kwargs["collections"] = []
        synchronization = kwargs.get("synchronization", VariableSynchronization.AUTO)
        if synchronization == VariableSynchronization.NONE:
            raise ValueError(
                "`NONE` variable synchronization mode is not supported with `Mirrored` "
                "distribution strategy. Please change the `synchronization` for variable: "
                f"{kwargs.get('name')}"
            )
        aggregation = kwargs.pop("aggregation", VariableAggregation.NONE)
        if aggregation is None:
            aggregation = VariableAggregation.NONE
        kwargs.pop("caching_device", None)
        made: list[Any] = []
        for i, d in enumerate(devices):
            with device(d):
                if i > 0:
                    primary = made[0]
                    init = primary.initial_value

                    def initial_value(init: Any = init, d: str = d) -> Any:
                        with device(d):
                            return array_ops.identity(init)

                    kwargs["initial_value"] = initial_value
                    kwargs["name"] = f"{primary.op.name}/replica_{i}/"
                made.append(next_creator(**kwargs))
        cls = (
            values_lib.SyncOnReadVariable
            if synchronization == VariableSynchronization.ON_READ
            else values_lib.MirroredVariable
        )
        mirrored = cls(self._container_strategy(), devices, made, aggregation)
        graph = get_default_graph()
        if kwargs.get("trainable", True) is not False and made[0].trainable:
            collections.append("trainable_variables")
            trainables = graph.get_collection_ref("trainable_variables")
            trainables[:] = [t for t in trainables if not any(t is m for m in made)]
        graph.add_to_collections(collections, mirrored)
        return mirrored

    def variable_created_in_scope(self, v: Any) -> bool:
        return getattr(v, "_distribute_strategy", None) is self._container_strategy()

    def colocate_vars_with(self, colocate_with_variable: Any) -> Any:
        def creator(next_creator: Callable[..., Any], **kwargs: Any) -> Any:
            kwargs["colocate_with"] = colocate_with_variable
            return next_creator(**kwargs)

        return variable_creators.variable_creator_scope(creator)

    def read_var(self, v: Any) -> Tensor:
        """The aggregate of a sync-on-read variable; an identity of anything else."""
        if isinstance(v, values_lib.SyncOnReadVariable):
            return v._get_cross_replica()  # type: ignore[no-any-return]
        return array_ops.identity(v.value() if hasattr(v, "value") else v)

    def value_container(self, value: Any) -> Any:
        container = getattr(value, "_distributed_container", None)
        return container() if container is not None else value

    # ---- reductions -----------------------------------------------------------------------
    def _reduce(self, reduce_op: reduce_util.ReduceOp, value: Any) -> Any:
        where = get_default_graph()._stack("device_stack")
        destination = "/device:CPU:0"
        del where
        reduced = self.reduce_to(reduce_op, value, destination)
        return values_lib.local_results(reduced)[0]

    def reduce_to(self, reduce_op: Any, value: Any, destinations: Any) -> Any:
        reduce_op = reduce_util.check(reduce_op)
        if isinstance(value, values_lib.Mirrored) and reduce_op == reduce_util.ReduceOp.MEAN:
            return value
        if not isinstance(value, values_lib.DistributedValues):
            return cdo.reduce_non_distributed_value(
                reduce_op, len(self._compute_devices), value, destinations
            )
        return self._all_workers(
            reduce_op, self._get_cross_device_ops().reduce(reduce_op, value, destinations)
        )

    def batch_reduce_to(
        self, reduce_op: Any, value_destination_pairs: Sequence[tuple[Any, Any]]
    ) -> list[Any]:
        reduce_op = reduce_util.check(reduce_op)
        pairs = list(value_destination_pairs)
        if all(isinstance(v, (values_lib.DistributedValues, Tensor)) for v, _ in pairs):
            reduced = self._get_cross_device_ops().batch_reduce(reduce_op, pairs)
            return [self._all_workers(reduce_op, r) for r in reduced]
        return [self.reduce_to(reduce_op, v, d) for v, d in pairs]

    def _all_workers(self, reduce_op: reduce_util.ReduceOp, reduced: Any) -> Any:
        """This worker's reduction combined with the other workers' (collective strategies)."""
        return reduced

    def broadcast_to(self, tensor: Any, destinations: Any) -> Any:
        if isinstance(tensor, (int, float)):
            return tensor
        return self._get_cross_device_ops().broadcast(tensor, destinations)

    # ---- updates ------------------------------------------------------------------------------
    def update(
        self,
        var: Any,
        fn: Callable[..., Any],
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
        group: bool = True,
    ) -> Any:
        kwargs = kwargs or {}
        with cross_replica(self._container_strategy()):
            if isinstance(var, values_lib.MirroredVariable):
                updates = []
                for i, (d, v) in enumerate(zip(var.devices, var.values)):
                    with device(d), self._updating(i), name_scope(f"update_{i}"):
                        updates.append(
                            fn(
                                v,
                                *values_lib.select_replica(i, args),
                                **values_lib.select_replica(i, kwargs),
                            )
                        )
                return self._update_regroup(var.devices, updates, group)
            with colocate_with(var), self._updating(0):
                result = fn(
                    var, *values_lib.select_replica(0, args), **values_lib.select_replica(0, kwargs)
                )
            return self._update_regroup((var.device,), [result], group)

    def update_non_slot(
        self,
        colocate_with: Any,  # TF's parameter name
        fn: Callable[..., Any],
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
        group: bool = True,
    ) -> Any:
        colocate_with_ = colocate_with
        kwargs = kwargs or {}
        if isinstance(colocate_with_, tuple) and self._mirrored:
            updates = []
            for i, d in enumerate(colocate_with_):
                with device(d), self._updating(i), name_scope(f"update_{i}"):
                    updates.append(
                        fn(
                            *values_lib.select_replica(i, args),
                            **values_lib.select_replica(i, kwargs),
                        )
                    )
            return self._update_regroup(colocate_with_, updates, group)
        target = colocate_with_[0] if isinstance(colocate_with_, (tuple, list)) else colocate_with_
        with contextlib.ExitStack() as stack:
            if isinstance(target, str):
                stack.enter_context(device(target))
            elif target is not None:
                stack.enter_context(_colocate_with(target))
            stack.enter_context(self._updating(0))
            result = fn(*values_lib.select_replica(0, args), **values_lib.select_replica(0, kwargs))
        return self._update_regroup(("",), [result], group)

    @contextlib.contextmanager
    def _updating(self, index: int) -> Iterator[None]:
        ctx = distribution_context.Context(self._container_strategy(), None, index)
        distribution_context.push(ctx)
        try:
            yield
        finally:
            distribution_context.pop(ctx)

    def _update_regroup(self, devices: Sequence[str], updates: list[Any], group: bool) -> Any:
        regrouped = values_lib.regroup(devices, updates, values_lib.Mirrored)
        if not group:
            return nest.map_structure(values_lib.local_results, regrouped)
        flat = []
        for u in nest.flatten(regrouped):
            if isinstance(u, values_lib.DistributedValues):
                g: Any = group_ops(*u.values)
                if all(isinstance(x, Tensor) for x in u.values):
                    copies = []
                    for d, x in zip(u.devices, u.values):
                        with device(d), _control(g):
                            copies.append(array_ops.identity(x))
                    g = values_lib.Mirrored(u.devices, copies)
                flat.append(g)
            else:
                flat.append(u)
        return nest.pack_sequence_as(regrouped, flat)

    def _group(self, value: Any, name: str | None = None) -> Any:
        flat = [x for v in nest.flatten(value) for x in values_lib.local_results(v)]
        return group_ops(*flat, name=name)

    # ---- replicas --------------------------------------------------------------------------
    def call_for_each_replica(
        self, fn: Callable[..., Any], args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        ctx = distribution_context.current()
        if ctx is not None and ctx.replica_context is not None:
            raise RuntimeError("`call_for_each_replica` must be called in cross-replica context")
        return ReplicaRunner(self, fn, tuple(args), dict(kwargs or {})).run()

    def experimental_run_steps_on_iterator(
        self,
        fn: Callable[..., Any],
        iterator: Any,
        iterations: int = 1,
        initial_loop_values: Any = None,
    ) -> Any:
        from tfcluster.framework import errors

        raise errors.UnimplementedError(
            None,
            None,
            "tf.distribute.StrategyExtended.experimental_run_steps_on_iterator is not "
            "implemented in tfcluster: it runs steps in a device loop for TPUStrategy; run "
            "experimental_run_v2 once per step instead",
        )

    # ---- input ----------------------------------------------------------------------------
    def _input_context(self, index: int = 0) -> input_lib.InputContext:
        pipelines, pipeline_id = self._input_pipelines or (self._num_workers, self._worker_index)
        return input_lib.InputContext(
            num_input_pipelines=pipelines,
            input_pipeline_id=pipeline_id,
            num_replicas_in_sync=self._num_replicas_in_sync,
        )

    def _make_dataset_iterator(self, dataset: Any) -> input_lib.DistributedIterator:
        return input_lib.DistributedDataset(
            self._sharded(dataset), self._compute_devices, self._input_workers[0], split=True
        ).make_initializable_iterator()

    def _experimental_distribute_dataset(self, dataset: Any) -> input_lib.DistributedDataset:
        return input_lib.DistributedDataset(
            self._sharded(dataset), self._compute_devices, self._input_workers[0], split=True
        )

    def _distribute_datasets_from_function(
        self, dataset_fn: Callable[..., Any]
    ) -> input_lib.DistributedDataset:
        with init_scope():
            dataset = dataset_fn(self._input_context())
        return input_lib.DistributedDataset(
            dataset, self._compute_devices, self._input_workers[0], split=False
        )

    def _make_input_fn_iterator(
        self, input_fn: Callable[..., Any]
    ) -> input_lib.DistributedIterator:
        with device(self._input_workers[0]):
            dataset = input_fn(self._input_context())
        return input_lib.iterator_for_input(dataset, self._compute_devices, self._input_workers[0])

    def _sharded(self, dataset: Any) -> Any:
        """Between workers of a collective strategy each reads its own shard, as TF's
        auto-sharding of file datasets does (here: by element)."""
        if self._num_workers > 1 and self._mirrored:
            return dataset.shard(self._num_workers, self._worker_index)
        return dataset

    # ---- configuration --------------------------------------------------------------------
    def _configure(
        self, session_config: Any, cluster_spec: Any, task_type: str | None, task_id: int | None
    ) -> None:
        if session_config is not None:
            self._update_config_proto(session_config)

    def _update_config_proto(self, config_proto: Any) -> Any:
        return config_proto

    # ---- properties ----------------------------------------------------------------------------
    @property
    def experimental_require_static_shapes(self) -> bool:
        return False

    @property
    def worker_devices(self) -> tuple[str, ...]:
        return self._compute_devices

    @property
    def parameter_devices(self) -> tuple[str, ...]:
        return self._parameter_devices

    def non_slot_devices(self, var_list: Sequence[Any]) -> Any:
        if self._mirrored:
            return self._compute_devices
        first = min(var_list, key=lambda v: v.name)
        return first

    @property
    def experimental_between_graph(self) -> bool:
        return self._between_graph

    @property
    def experimental_should_init(self) -> bool:
        # Each worker of a mirrored strategy initialises its own copies; of a parameter-server
        # strategy only the chief initialises the shared variables (TF 1.15's).
        return True if self._mirrored else self._is_chief

    @property
    def should_checkpoint(self) -> bool:
        return self._is_chief

    @property
    def should_save_summary(self) -> bool:
        return self._is_chief


@contextlib.contextmanager
def _control(op: Any) -> Iterator[None]:
    from tfcluster.framework.graph import control_dependencies

    with control_dependencies([op]):
        yield


class SingleReplicaReduction:
    """Reductions of a strategy with one replica: a value is already its own sum or mean."""

    def _reduce(self, reduce_op: reduce_util.ReduceOp, value: Any) -> Any:
        return value

    def reduce_to(self, reduce_op: Any, value: Any, destinations: Any) -> Any:
        reduce_util.check(reduce_op)
        return value

    def batch_reduce_to(
        self, reduce_op: Any, value_destination_pairs: Sequence[tuple[Any, Any]]
    ) -> list[Any]:
        return [self.reduce_to(reduce_op, v, d) for v, d in value_destination_pairs]


# ---- the default strategy ------------------------------------------------------------------
class _DefaultDistributionExtended(SingleReplicaReduction, StrategyExtended):
    """No distribution: variables and ops where the program puts them, one replica."""

    def __init__(self, strategy: Strategy) -> None:
        super().__init__(strategy, ("/device:CPU:0",), mirrored=False)

    def _variable_creator(self, next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        colocate = kwargs.pop("colocate_with", None)
        if colocate is not None:
            with colocate_with(colocate):
                return next_creator(**kwargs)
        return next_creator(**kwargs)

    def colocate_vars_with(self, colocate_with_variable: Any) -> Any:
        return colocate_with(colocate_with_variable)

    def variable_created_in_scope(self, v: Any) -> bool:
        return getattr(v, "_distribute_strategy", None) is None

    def update(
        self,
        var: Any,
        fn: Callable[..., Any],
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
        group: bool = True,
    ) -> Any:
        with colocate_with(var):
            result = fn(var, *args, **(kwargs or {}))
        return _group_or_value(result, group)

    def update_non_slot(
        self,
        colocate_with: Any,  # TF's parameter name
        fn: Callable[..., Any],
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
        group: bool = True,
    ) -> Any:
        colocate_with_ = colocate_with
        with _colocate_with(colocate_with_):
            result = fn(*args, **(kwargs or {}))
        return _group_or_value(result, group)

    def non_slot_devices(self, var_list: Sequence[Any]) -> Any:
        return min(var_list, key=lambda v: v.name)

    def call_for_each_replica(
        self, fn: Callable[..., Any], args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        with _default_replica_context():
            return fn(*args, **(kwargs or {}))

    def _make_dataset_iterator(self, dataset: Any) -> input_lib.DistributedIterator:
        return input_lib.DistributedDataset(
            dataset, self._compute_devices, None, split=False
        ).make_initializable_iterator()

    def _experimental_distribute_dataset(self, dataset: Any) -> input_lib.DistributedDataset:
        return input_lib.DistributedDataset(dataset, self._compute_devices, None, split=False)

    def _make_input_fn_iterator(
        self, input_fn: Callable[..., Any]
    ) -> input_lib.DistributedIterator:
        return input_lib.iterator_for_input(
            input_fn(input_lib.InputContext()), self._compute_devices, None
        )

    @property
    def worker_devices(self) -> tuple[str, ...]:
        raise RuntimeError("worker_devices() method unsupported by default tf.distribute.Strategy.")

    @property
    def parameter_devices(self) -> tuple[str, ...]:
        raise RuntimeError(
            "parameter_devices() method unsupported by default tf.distribute.Strategy."
        )


def _group_or_value(result: Any, group: bool) -> Any:
    if not group:
        return nest.map_structure(lambda x: (x,), result)
    return result


class _DefaultDistributionStrategy(Strategy):
    def __init__(self) -> None:
        super().__init__(_DefaultDistributionExtended(self))

    def scope(self) -> Any:
        """Entering the default strategy's scope changes nothing (as in TF)."""
        if has_strategy():
            raise RuntimeError("Must not nest tf.distribute.Strategy scopes.")
        return contextlib.nullcontext(self)


_DEFAULT: list[_DefaultDistributionStrategy] = []


def _default_strategy() -> _DefaultDistributionStrategy:
    if not _DEFAULT:
        _DEFAULT.append(_DefaultDistributionStrategy())
    return _DEFAULT[0]


class _DefaultReplicaContext(ReplicaContext):
    """The replica context outside every strategy: one replica, id 0. Its id constant is
    made on first use only, so that a program without strategies gets no extra op."""

    def __init__(self) -> None:
        self._strategy = _default_strategy()
        self._local_index = 0
        self._thread = None
        self._context = distribution_context.Context(self._strategy, self)

    @property
    def replica_id_in_sync_group(self) -> Tensor:
        return constant_op.constant(0, dtypes.int32)

    def merge_call(
        self,
        merge_fn: Callable[..., Any],
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        return merge_fn(self._strategy, *args, **(kwargs or {}))

    def __enter__(self) -> ReplicaContext:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


def _default_replica_context() -> _DefaultReplicaContext:
    return _DefaultReplicaContext()


class CollectiveCommunication(enum.Enum):
    """Which collective all-reduce MultiWorkerMirroredStrategy asks for."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"
