"""Estimator.train under RunConfig(train_distribute=strategy), as TF 1.15's Estimator does it:
the input_fn (told its tf.distribute.InputContext when it asks for `input_context`) feeds the
strategy's replicas through make_input_fn_iterator, model_fn is built once per replica, the
replicas' losses are reduced for reporting and their train ops grouped into one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.framework.graph import add_to_collection, get_default_graph
from tfcluster.lib.distribute.reduce_util import ReduceOp
from tfcluster.lib.estimator.model_fn import EstimatorSpec, ModeKeys
from tfcluster.training import training_util
from tfcluster.training.session_run_hook import SessionRunHook


class DistributedIteratorInitializerHook(SessionRunHook):
    """Initialises the strategy's input iterator when the session is made."""

    def __init__(self, iterator: Any) -> None:
        self._iterator = iterator

    def begin(self) -> None:
        self._initializer = self._iterator.initializer

    def after_create_session(self, session: Any, coord: Any) -> None:
        session.run(self._initializer)


def _parse_iterator_result(result: Any) -> tuple[Any, Any]:
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError(
                "input_fn should return (features, labels) as a len 2 tuple, or a "
                f"Dataset of those; got a tuple of {len(result)}."
            )
        return result[0], result[1]
    return result, None


def _loss_reduce_op_for_reporting() -> ReduceOp:
    # The optimizer scaled each replica's MEAN loss by 1/replicas: report their mean.
    if getattr(get_default_graph(), "_is_loss_scaled_by_optimizer", False):
        return ReduceOp.MEAN
    return ReduceOp.SUM


def build_distributed_train_spec(
    strategy: Any,
    call_input_fn: Callable[[Any], Any],
    call_model_fn: Callable[..., EstimatorSpec],
    config: Any,
) -> tuple[EstimatorSpec, list[SessionRunHook], Any]:
    """(the EstimatorSpec to train with, the input hooks, the global step), built in the
    default graph, inside the strategy's scope (the caller holds it open)."""
    iterator = strategy.make_input_fn_iterator(call_input_fn)
    input_hooks: list[SessionRunHook] = [DistributedIteratorInitializerHook(iterator)]
    global_step = training_util.get_or_create_global_step()
    add_to_collection(training_util.GLOBAL_STEP_READ_KEY, strategy.extended.read_var(global_step))
    features, labels = _parse_iterator_result(iterator.get_next())
    grouped = strategy.extended.call_for_each_replica(
        call_model_fn, args=(features, labels, ModeKeys.TRAIN, config)
    )
    loss = strategy.reduce(_loss_reduce_op_for_reporting(), grouped.loss, axis=None)
    first = strategy.experimental_local_results
    spec = EstimatorSpec(
        mode=ModeKeys.TRAIN,
        loss=loss,
        train_op=strategy.group(grouped.train_op),
        training_hooks=[first(h)[0] for h in grouped.training_hooks],
        training_chief_hooks=[first(h)[0] for h in grouped.training_chief_hooks],
        scaffold=first(grouped.scaffold)[0],
    )
    return spec, input_hooks, global_step


def build_distributed_eval_spec(
    strategy: Any,
    call_input_fn: Callable[[Any], Any],
    call_model_fn: Callable[..., EstimatorSpec],
    config: Any,
) -> tuple[Any, list[SessionRunHook]]:
    """Estimator.evaluate under RunConfig(eval_distribute=strategy): the replicas' specs
    grouped (loss and metric ops per replica; metrics read across replicas) and the input
    hooks. The caller adds the loss metric per replica and groups the update ops."""
    iterator = strategy.make_input_fn_iterator(call_input_fn)
    input_hooks: list[SessionRunHook] = [DistributedIteratorInitializerHook(iterator)]
    features, labels = _parse_iterator_result(iterator.get_next())
    grouped = strategy.extended.call_for_each_replica(
        call_model_fn, args=(features, labels, ModeKeys.EVAL, config)
    )
    first = strategy.experimental_local_results
    spec = grouped._replace(
        scaffold=first(grouped.scaffold)[0],
        evaluation_hooks=first(grouped.evaluation_hooks)[0]
        if not isinstance(grouped.evaluation_hooks, list)
        else [first(h)[0] for h in grouped.evaluation_hooks],
    )
    return spec, input_hooks
