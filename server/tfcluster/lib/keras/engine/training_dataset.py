"""Model.fit / evaluate / predict given a tf.data Dataset (TF 1.15, graph mode): batches come
from an iterator of the dataset in the Keras session. Without steps, a finite dataset's
cardinality gives the steps and it restarts every epoch; an infinite one needs
steps_per_epoch (ValueError, as TF); one of unknown size runs to its end each epoch. With
steps, one iterator serves every epoch; fit's validation dataset restarts after every
validation, steps or not (TF 1.15 reinitializes its iterator). Iterators made by the user are
refused, as TF 1.15 refuses them."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.framework.graph import Tensor
from tfcluster.lib.data import experimental as data_experimental
from tfcluster.lib.data.dataset import Dataset
from tfcluster.lib.data.iterator import Iterator as DataIterator
from tfcluster.lib.data.iterator import make_initializable_iterator
from tfcluster.lib.keras import backend
from tfcluster.lib.keras.backend_function import as_callable_error
from tfcluster.lib.keras.engine import training_generator
from tfcluster.lib.keras.engine.loop_hooks import LoopHooks
from tfcluster.ops import array_ops, math_ops


def is_dataset_input(x: Any) -> bool:
    """A Dataset (or an iterator of one, which fit refuses): not arrays."""
    return isinstance(x, (Dataset, DataIterator))


def check_dataset_arguments(x: Any, y: Any, batch_size: Any) -> None:
    if isinstance(x, DataIterator):
        raise ValueError(
            "For performance reasons Keras `fit`, `evaluate` and`predict` accept tf.data "
            "`Datasets` as input but not iterators that have been manually generated from "
            "Datasets by users. Please directly pass in the original `Dataset` object instead "
            "of passing in `iter(dataset)`."
        )
    if batch_size is not None:
        raise ValueError(
            "The `batch_size` argument must not be specified for the given input type. "
            f"Received input: {x}, batch_size: {batch_size}"
        )
    if y is not None:
        raise ValueError(
            f"You passed a dataset or dataset iterator ({x}) as input `x` to your model. In "
            "that case, you should not specify a target (`y`) argument, since the dataset or "
            f"dataset iterator generates both input data and target data. Received: {y}"
        )


def warn_if_not_shuffled(dataset: Any) -> None:
    """TF 1.15's verify_dataset_shuffled, run by fit(shuffle=True): a warning when no
    ShuffleDataset op feeds the dataset's graph."""
    if not isinstance(dataset, Dataset):
        return
    stack = [dataset._variant_tensor.op]
    seen: set[int] = set()
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        if op.type.startswith("Shuffle"):  # shuffle_and_repeat: TF 1.15 shuffles, repeats
            return
        stack.extend(t.op for t in op.inputs)
    logging.getLogger("tensorflow").warning(
        "Expected a shuffled dataset but input dataset `x` is not shuffled. Please invoke "
        "`shuffle()` on input dataset."
    )


class DatasetBatches:
    """A dataset's batches as numpy values, epoch by epoch, built as TF 1.15's Keras loop
    builds its input: a DatasetCardinality op only where the steps are inferred, the
    iterator, and on the first batch a Cast of each component whose dtype is not the model's
    (TF's K.function casts a fed symbolic tensor to its placeholder's dtype), so the graph
    holds TF's ops and the seeds of random ops made later are TF's."""

    def __init__(
        self,
        dataset: Dataset,
        steps: Any,
        steps_name: str,
        restarts: bool = False,
        model: Any = None,
        mode: str = "train",
    ) -> None:
        self._model = model
        self._mode = mode
        self.restarts = restarts or steps is None
        if steps is not None:
            self.steps: int | None = int(steps)
        else:
            size_t = data_experimental.cardinality(dataset)
            size = int(backend.get_session((size_t,)).run(size_t))
            if size == data_experimental.INFINITE_CARDINALITY:
                raise ValueError(
                    "When passing an infinitely repeating dataset, you must specify the "
                    f"`{steps_name}` argument."
                )
            self.steps = None if size == data_experimental.UNKNOWN_CARDINALITY else size
        self._iterator = make_initializable_iterator(dataset)
        self._session = backend.get_session((self._iterator.initializer,))
        with self._session.graph.as_default():
            self._next = self._iterator.get_next()
            if model is not None:
                self._next = _expand_rank_one(model, mode, self._next)
        self._fetch: Any = None
        self._started = False

    def _fetches(self) -> Any:
        """get_next's tensors, cast to the model's dtypes (made on the first batch)."""
        if self._fetch is None:
            self._fetch = self._next
            if self._model is not None:
                with self._session.graph.as_default():
                    self._fetch = _cast_to_model(self._model, self._mode, self._next)
        return self._fetch

    def epoch(self) -> Iterator[Any]:
        """This epoch's batches: `steps` of them, or up to the dataset's end."""
        if self.restarts or not self._started:
            self._session.run(self._iterator.initializer)
            self._started = True
        taken = 0
        while self.steps is None or taken < self.steps:
            fetches = self._fetches()
            try:
                batch = self._session.run(fetches)
            except errors.OutOfRangeError:
                return
            except errors.OpError as e:
                # TF 1.15 reads the batch inside the step's session callable: raw errors.
                raise as_callable_error(e) from None
            taken += 1
            yield tuple(batch) if isinstance(batch, (list, tuple)) else batch


def _placeholder_groups(model: Any, mode: str, parts: list[Any]) -> list[tuple[Any, list[Any]]]:
    """(element part, the model's placeholders it feeds) for x, and y unless predicting; none
    where the model is not built yet."""
    if not getattr(model, "built", False) or not getattr(model, "inputs", None):
        return []
    if mode == "predict":
        return [(parts[0], list(model.inputs))]
    if len(parts) < 2:
        return []
    model._ensure_loss()
    return [(parts[0], list(model.inputs)), (parts[1], list(model._fed_targets))]


def _map_parts(element: Any, groups_of: Any, change: Any) -> Any:
    """The element with change(tensor, placeholder) applied to each tensor of x (and y) that
    feeds a placeholder of the model; the element as it is where its parts are not plain
    tensors or flat lists of them matching the model's placeholders."""
    parts = list(element) if isinstance(element, tuple) else [element]
    groups = groups_of(parts)
    out = list(parts)
    for index, (value, placeholders) in enumerate(groups):
        tensors = list(value) if isinstance(value, (list, tuple)) else [value]
        if len(tensors) != len(placeholders) or not all(isinstance(t, Tensor) for t in tensors):
            return element
        changed = [change(t, p) for t, p in zip(tensors, placeholders)]
        out[index] = type(value)(changed) if isinstance(value, (list, tuple)) else changed[0]
    return tuple(out) if isinstance(element, tuple) else out[0]


def _expand_rank_one(model: Any, mode: str, element: Any) -> Any:
    """TF 1.15's standardize_single_array on the iterator's tensors: a rank-1 input or target
    whose placeholder has another rank gets a last axis (ExpandDims)."""

    def expand(t: Any, p: Any) -> Any:
        if t.shape.ndims == 1 and p.shape.ndims not in (None, 1):
            return array_ops.expand_dims(t, 1)
        return t

    return _map_parts(element, lambda parts: _placeholder_groups(model, mode, parts), expand)


def _cast_to_model(model: Any, mode: str, element: Any) -> Any:
    """The element with each input (and target) tensor cast to its model placeholder's dtype
    where they differ, made where TF 1.15's loop makes them: after it builds its K.function
    and resets the metrics, as the function's first call makes its callable."""

    def groups_of(parts: list[Any]) -> list[tuple[Any, list[Any]]]:
        groups = _placeholder_groups(model, mode, parts)
        if groups and mode == "predict":
            model._ensure_predict_function()
        elif groups:
            model._ensure_compiled(for_training=mode == "train")
        if groups:
            model.reset_metrics()  # the loop resets them before its first batch anyway
        return groups

    def cast(t: Any, p: Any) -> Any:
        return t if t.dtype == p.dtype else math_ops.cast(t, p.dtype)

    return _map_parts(element, groups_of, cast)


def fit(
    model: Any,
    dataset: Any,
    epochs: int,
    verbose: int,
    callbacks: Any,
    validation_data: Any,
    steps_per_epoch: Any,
    validation_steps: Any,
    validation_freq: int,
    initial_epoch: int,
    class_weight: Any = None,
) -> Any:
    batches = DatasetBatches(dataset, steps_per_epoch, "steps_per_epoch", model=model)
    validation: training_generator.Validation | None = None
    val_size: Any = None
    if validation_data is not None:
        if is_dataset_input(validation_data):
            check_dataset_arguments(validation_data, None, None)
            val = DatasetBatches(
                validation_data,
                validation_steps,
                "validation_steps",
                restarts=True,
                model=model,
                mode="test",
            )
            val_size = val.steps

            def on_dataset(last_size: int, hooks: LoopHooks) -> list[float]:
                return training_generator._evaluate_batches(
                    model, val.epoch(), val.steps, hooks=hooks, steps_as_samples=True
                )

            validation = on_dataset

        else:
            validation = training_generator._generator_validation(
                model, validation_data, validation_steps
            )
            val_size = _first_size(validation_data)
    if verbose:
        # TF 1.15's _print_train_info counts a dataset's steps (None when unknown).
        message = f"Train on {batches.steps} steps"
        if val_size:
            message += f", validate on {val_size} steps"
        print(message)
    return training_generator.fit_batches(
        model,
        batches.epoch,
        batches.steps,
        epochs=epochs,
        verbose=verbose,
        callbacks=callbacks,
        validation=validation,
        validation_freq=validation_freq,
        initial_epoch=initial_epoch,
        samples=batches.steps,
        loss_by_steps=True,
        class_weight=class_weight,
    )


def _first_size(structure: Any) -> int:
    """The first dimension of a structure's first array (nest.flatten's order)."""
    while isinstance(structure, (list, tuple, dict)):
        structure = structure[sorted(structure)[0]] if isinstance(structure, dict) else structure[0]
    return int(np.shape(structure)[0])


def evaluate(model: Any, dataset: Any, steps: Any, verbose: int = 0, callbacks: Any = None) -> Any:
    batches = DatasetBatches(dataset, steps, "steps", model=model, mode="test")
    hooks = training_generator.loop_hooks(model, callbacks, "test", batches.steps, batches.steps)
    result = training_generator._evaluate_batches(
        model, batches.epoch(), batches.steps, verbose, hooks, steps_as_samples=True
    )
    return result[0] if len(result) == 1 else result


def predict(model: Any, dataset: Any, steps: Any, verbose: int = 0, callbacks: Any = None) -> Any:
    batches = DatasetBatches(dataset, steps, "steps", model=model, mode="predict")
    hooks = training_generator.loop_hooks(model, callbacks, "predict", batches.steps, batches.steps)
    return training_generator.predict_batches(
        model, batches.epoch(), batches.steps, verbose, hooks, steps_as_samples=True
    )
