"""tf.train.SyncReplicasOptimizer: synchronous data-parallel training (TF1's design).

Every worker pushes its gradients into one ConditionalAccumulator per variable (on the
variable's ps, shared by name), then waits for a token from the token queue (on the global
step's ps). The chief's queue runner takes the mean of `replicas_to_aggregate` gradients from
each accumulator, applies them with the wrapped optimizer (incrementing the global step), and
puts one token per replica in the queue, each carrying the new global step. Workers stamp their
gradients with their local step (the global step of their last token), so gradients computed
for an old step are dropped by the accumulators.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    device,
    name_scope,
)
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.ops import array_ops, data_flow_ops, state_ops
from tfcluster.ops.control_flow_ops import group, no_op
from tfcluster.ops.sparse_data_flow_ops import SparseConditionalAccumulator
from tfcluster.ops.variables import Variable, global_variables, report_uninitialized_variables
from tfcluster.training.optimizer import Optimizer
from tfcluster.training.queue_runner import QueueRunner
from tfcluster.training.session_manager import _ready
from tfcluster.training.session_run_hook import SessionRunHook

_log = logging.getLogger("tensorflow")


class SyncReplicasOptimizer(Optimizer):
    def __init__(
        self,
        opt: Optimizer,
        replicas_to_aggregate: int,
        total_num_replicas: int | None = None,
        variable_averages: Any = None,
        variables_to_average: Any = None,
        use_locking: bool = False,
        name: str = "sync_replicas",
    ) -> None:
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        if replicas_to_aggregate < 1:
            raise ValueError(f"replicas_to_aggregate must be positive, got {replicas_to_aggregate}")
        super().__init__(use_locking, name)
        _log.info(
            "SyncReplicasV2: replicas_to_aggregate=%s; total_num_replicas=%s",
            replicas_to_aggregate,
            total_num_replicas,
        )
        self._opt = opt
        # An ExponentialMovingAverage the chief applies to these variables after each update.
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._replicas_to_aggregate = replicas_to_aggregate
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._gradients_applied = False
        self._global_step: Any = None
        self._sync_token_queue: data_flow_ops.FIFOQueue | None = None
        self._chief_queue_runner: QueueRunner | None = None
        self._accumulator_list: list[tuple[data_flow_ops.ConditionalAccumulator, str]] = []
        self._local_step: Any = None
        self.local_step_init_op: Operation | None = None
        self.chief_init_op: Operation | None = None
        self.ready_for_local_init_op: Tensor | None = None

    def compute_gradients(self, *args: Any, **kwargs: Any) -> list[tuple[Tensor | None, Any]]:
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(
        self,
        grads_and_vars: Sequence[tuple[Any, Any]],
        global_step: Any = None,
        name: str | None = None,
    ) -> Operation:
        """The worker's train op: push gradients, then wait for the next step's token."""
        grads_and_vars = list(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        step_dtype = global_step.dtype.base_dtype
        train_ops: list[Operation] = []
        aggregated: list[Tensor | IndexedSlices | None] = []
        var_list: list[Any] = []
        # The local step lives on this worker: it is created next to an op with no ps role.
        local_anchor = no_op()
        with colocate_with(local_anchor):
            self._local_step = Variable(
                0,
                trainable=False,
                collections=[GraphKeys.LOCAL_VARIABLES],
                dtype=step_dtype,
                name="sync_rep_local_step",
            )
        self.local_step_init_op = state_ops.assign(self._local_step, global_step).op
        chief_init_ops: list[Operation] = [self.local_step_init_op]
        self.ready_for_local_init_op = report_uninitialized_variables(global_variables())

        with name_scope(None, self._name):
            for grad, var in grads_and_vars:
                var_list.append(var)
                with device(var.device):
                    if grad is None:
                        aggregated.append(None)
                        continue
                    if isinstance(grad, IndexedSlices):
                        # A gather's gradient: its rows, averaged per row (TF's way).
                        sparse = SparseConditionalAccumulator(
                            grad.dtype.base_dtype, shape=(), shared_name=var.name + "/grad_accum"
                        )
                        train_ops.append(
                            sparse.apply_indexed_slices_grad(grad, local_step=self._local_step)
                        )
                        aggregated.append(
                            sparse.take_indexed_slices_grad(self._replicas_to_aggregate)
                        )
                        self._accumulator_list.append((sparse, var.device))
                        continue
                    if not isinstance(grad, Tensor):
                        raise ValueError("Unknown grad type!")
                    acc = data_flow_ops.ConditionalAccumulator(
                        grad.dtype.base_dtype,
                        shape=var.get_shape(),
                        shared_name=var.name + "/grad_accum",
                    )
                    train_ops.append(acc.apply_grad(grad, local_step=self._local_step))
                    aggregated.append(acc.take_grad(self._replicas_to_aggregate))
                    self._accumulator_list.append((acc, var.device))

            with device(global_step.device), name_scope(""):
                update_op = self._opt.apply_gradients(list(zip(aggregated, var_list)), global_step)
                self._sync_token_queue = data_flow_ops.FIFOQueue(
                    -1, step_dtype, shapes=(), name="sync_token_q", shared_name="sync_token_q"
                )
                # The queue runner gets a dummy queue: closing it never closes the real one.
                dummy_queue = data_flow_ops.FIFOQueue(
                    1, dtypes.int32, shapes=(), name="dummy_queue", shared_name="dummy_queue"
                )
                with control_dependencies(train_ops):
                    token = self._sync_token_queue.dequeue()
                train_op = state_ops.assign(self._local_step, token).op
                with control_dependencies([update_op]):
                    tokens = array_ops.fill([self._tokens_per_step], global_step)
                    sync_op = self._sync_token_queue.enqueue_many((tokens,))
                if self._variable_averages is not None:
                    with control_dependencies([sync_op]), name_scope(""):
                        sync_op = self._variable_averages.apply(self._variables_to_average)
            # On stop, the runner's step waiting in take_grad is cancelled (TF gets this from
            # closing the session, after the coordinator's grace period); the accumulators stay
            # usable for a later chief session.
            cancel_takes = []
            for acc, dev in self._accumulator_list:
                with device(dev):
                    cancel_takes.append(acc.cancel_pending_takes())
            with device(global_step.device), name_scope(""):
                cancel_op = group(dummy_queue.close(cancel_pending_enqueues=True), *cancel_takes)
                self._chief_queue_runner = QueueRunner(dummy_queue, [sync_op], cancel_op=cancel_op)

            for acc, dev in self._accumulator_list:
                with device(dev):
                    chief_init_ops.append(acc.set_global_step(global_step, name="SetGlobalStep"))
            self.chief_init_op = group(*chief_init_ops)
        self._gradients_applied = True
        return train_op

    def get_chief_queue_runner(self) -> QueueRunner:
        if not self._gradients_applied or self._chief_queue_runner is None:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_slot(self, *args: Any, **kwargs: Any) -> Any:
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args: Any, **kwargs: Any) -> list[str]:
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self) -> list[Any]:
        return self._opt.variables()

    def get_init_tokens_op(self, num_tokens: int = -1) -> Operation:
        """Fills the token queue so the first step can start (replicas_to_aggregate tokens)."""
        if not self._gradients_applied or self._sync_token_queue is None:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        tokens_needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < tokens_needed:
            raise ValueError(
                f"Too few tokens to finish the first step: {num_tokens} (given) vs "
                f"{tokens_needed} (needed)"
            )
        if num_tokens <= 0:
            return no_op(name="no_init_tokens")
        return self._enqueue_tokens(num_tokens)

    def _enqueue_tokens(self, num_tokens: int) -> Operation:
        assert self._sync_token_queue is not None
        with device(self._global_step.device), name_scope(""):
            tokens = array_ops.fill([num_tokens], self._global_step)
            return self._sync_token_queue.enqueue_many((tokens,))

    def make_session_run_hook(self, is_chief: bool, num_tokens: int = -1) -> SessionRunHook:
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


class _SyncReplicasOptimizerHook(SessionRunHook):
    """Initialises the local step; on the chief also starts the queue runner and the tokens."""

    def __init__(self, sync_optimizer: SyncReplicasOptimizer, is_chief: bool, num_tokens: int):
        self._sync_optimizer = sync_optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens

    def begin(self) -> None:
        opt = self._sync_optimizer
        if not opt._gradients_applied:
            raise ValueError(
                "SyncReplicasOptimizer.apply_gradient should be called before using the hook."
            )
        self._ready_for_local_init_op = opt.ready_for_local_init_op
        if self._is_chief:
            self._local_init_op = opt.chief_init_op
            self._q_runner: QueueRunner | None = opt.get_chief_queue_runner()
            self._init_tokens_op: Operation | None = opt.get_init_tokens_op(self._num_tokens)
            self._release_op: Operation | None = opt._enqueue_tokens(opt._total_num_replicas)
        else:
            self._local_init_op = opt.local_step_init_op
            self._q_runner = None
            self._init_tokens_op = None
            self._release_op = None

    def after_create_session(self, session: Any, coord: Any) -> None:
        ok, msg = _ready(
            self._ready_for_local_init_op,
            session,
            "Model is not ready for SyncReplicasOptimizer local init.",
        )
        if not ok:
            raise RuntimeError(
                "Init operations did not make model ready for SyncReplicasOptimizer local_init. "
                f"Init op: {getattr(self._local_init_op, 'name', None)}, error: {msg}"
            )
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            self._q_runner.create_threads(session, coord=coord, daemon=True, start=True)

    def end(self, session: Any) -> None:
        """The chief is done: one token per replica releases the workers still waiting for a
        step that will never be aggregated (TensorFlow leaves them blocked), so they see the
        final global step and stop too."""
        if self._release_op is not None:
            session.run(self._release_op)


__all__ = ["SyncReplicasOptimizer"]
