"""Iterators in checkpoints: make_saveable_from_iterator (what tf.train.Saver saves for an
iterator) and CheckpointInputPipelineHook (an Estimator's input pipeline saved beside its
model, so training restarts at the element where it stopped), as TF 1.15 has them.

The saved tensor is the iterator's state (kernels/iterator_state.py) under TF's key,
`<iterator resource>-state`; tfcluster writes it as a string where TF writes a variant, so
each framework restores only the iterator states it saved."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Operation, Tensor, colocate_with, get_collection
from tfcluster.lib.data.iterator import GLOBAL_ITERATORS, Iterator
from tfcluster.ops import dataset_more_ops
from tfcluster.training import basic_session_run_hooks, checkpoint_management
from tfcluster.training.saver import SaveableObject, Saver, SaveSpec
from tfcluster.training.session_run_hook import SessionRunHook


class _Saveable(SaveableObject):
    """An iterator's state: saved as one string tensor, restored into the iterator."""

    def __init__(self, iterator_resource: Tensor) -> None:
        name = iterator_resource.name
        with colocate_with(iterator_resource.op):
            state = dataset_more_ops.iterator_state_to_string(iterator_resource)
        spec = SaveSpec(state, "", name + "-state", dtypes.string, iterator_resource.device)
        super().__init__(iterator_resource, [spec], name)

    def restore(self, restored_tensors: Any, restored_shapes: Any) -> Operation:
        with colocate_with(self.op.op):
            return dataset_more_ops.iterator_state_from_string(self.op, restored_tensors[0])


def make_saveable_from_iterator(iterator: Iterator) -> SaveableObject:
    """A SaveableObject for `iterator` (add it to tf.GraphKeys.SAVEABLE_OBJECTS or pass it
    in a Saver's var_list): a restore puts the iterator back where it was saved. The
    iterator must be initialised before a restore, as in TF."""
    return _Saveable(iterator._iterator_resource)


class _CustomSaver(Saver):
    """A Saver keeping its own `checkpoint` state file (the input pipeline's, beside the
    model's)."""

    def __init__(self, var_list: Any, latest_filename: str) -> None:
        super().__init__(var_list)
        self._latest_filename = latest_filename

    def save(
        self,
        sess: Any,
        save_path: str,
        global_step: Any = None,
        latest_filename: str | None = None,
        meta_graph_suffix: str = "meta",
        write_meta_graph: bool = True,
        write_state: bool = True,
        strip_default_attrs: bool = False,
        save_debug_info: bool = False,
    ) -> str | None:
        return super().save(
            sess,
            save_path,
            global_step,
            latest_filename or self._latest_filename,
            meta_graph_suffix,
            write_meta_graph,
            write_state,
            strip_default_attrs,
            save_debug_info,
        )


class CheckpointInputPipelineHook(SessionRunHook):
    """Checkpoints the input pipeline's iterators with an Estimator's model checkpoints, and
    restores them when training starts again (TF 1.15's hook: files input.ckpt-N and
    checkpoint_input in the model_dir; `input_<task type>_<task id>` with several workers)."""

    def __init__(self, estimator: Any) -> None:
        config = estimator.config
        prefix = "input"
        if config.num_worker_replicas > 1:
            prefix += f"_{config.task_type}_{config.task_id}"
        self._checkpoint_saver_hook = basic_session_run_hooks.CheckpointSaverHook(
            estimator.model_dir,
            save_secs=config.save_checkpoints_secs,
            save_steps=config.save_checkpoints_steps,
            checkpoint_basename=prefix + ".ckpt",
        )
        self._latest_filename = "checkpoint_" + prefix
        self._first_run = True

    def begin(self) -> None:
        hook = self._checkpoint_saver_hook
        if hook._saver is None and hook._scaffold is None:
            saveables = [_Saveable(i) for i in get_collection(GLOBAL_ITERATORS)]
            hook._saver = _CustomSaver(saveables, self._latest_filename)
        hook.begin()

    def _restore_or_save_initial_ckpt(self, session: Any) -> None:
        hook = self._checkpoint_saver_hook
        latest = checkpoint_management.latest_checkpoint(
            hook._checkpoint_dir, latest_filename=self._latest_filename
        )
        if latest:
            hook._get_saver().restore(session, latest)
        else:
            step = session.run(hook._global_step_tensor)
            hook._save(session, step)
            hook._timer.update_last_triggered_step(step)

    def before_run(self, run_context: Any) -> Any:
        # Not in after_create_session: the hook initialising the iterators may run after
        # this one there; every after_create_session has run before the first step.
        if self._first_run:
            self._restore_or_save_initial_ckpt(run_context.session)
            self._first_run = False
        return self._checkpoint_saver_hook.before_run(run_context)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        self._checkpoint_saver_hook.after_run(run_context, run_values)

    def end(self, session: Any) -> None:
        self._checkpoint_saver_hook.end(session)
