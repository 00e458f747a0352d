"""Model.fit / evaluate / predict given a tf.data Dataset (TF 1.15, graph mode): batches come
from an iterator of the dataset in the Keras session. Without steps, a finite dataset's
cardinality gives the steps and it restarts every epoch; an infinite one needs
steps_per_epoch (ValueError, as TF); one of unknown size runs to its end each epoch. With
steps, one iterator serves every epoch. Iterators made by the user are refused, as TF 1.15
refuses them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.lib.data import experimental as data_experimental
from tfcluster.lib.data.dataset import Dataset
from tfcluster.lib.data.iterator import Iterator as DataIterator
from tfcluster.lib.data.iterator import make_initializable_iterator
from tfcluster.lib.keras import backend
from tfcluster.lib.keras.engine import training_generator
from tfcluster.lib.keras.engine.loop_hooks import LoopHooks


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


class DatasetBatches:
    """A dataset's batches as numpy values, epoch by epoch."""

    def __init__(self, dataset: Dataset, steps: Any, steps_name: str) -> None:
        self._session = backend.get_session()
        with self._session.graph.as_default():
            self._iterator = make_initializable_iterator(dataset)
            self._next = self._iterator.get_next()
            size_t = data_experimental.cardinality(dataset)
        size = int(self._session.run(size_t))
        self.restarts = steps is None
        if steps is not None:
            self.steps: int | None = int(steps)
        elif size == data_experimental.INFINITE_CARDINALITY:
            raise ValueError(
                "When passing an infinitely repeating dataset, you must specify the "
                f"`{steps_name}` argument."
            )
        else:
            self.steps = None if size == data_experimental.UNKNOWN_CARDINALITY else size
        self._started = False

    def epoch(self) -> Iterator[Any]:
        """This epoch's batches: `steps` of them, or up to the dataset's end."""
        if self.restarts or not self._started:
            self._session.run(self._iterator.initializer)
            self._started = True
        taken = 0
        while self.steps is None or taken < self.steps:
            try:
                batch = self._session.run(self._next)
            except errors.OutOfRangeError:
                return
            taken += 1
            yield tuple(batch) if isinstance(batch, list) else batch


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
    batches = DatasetBatches(dataset, steps_per_epoch, "steps_per_epoch")
    validation: training_generator.Validation | None = None
    val_size: Any = None
    if validation_data is not None:
        if is_dataset_input(validation_data):
            check_dataset_arguments(validation_data, None, None)
            val = DatasetBatches(validation_data, validation_steps, "validation_steps")
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
    batches = DatasetBatches(dataset, steps, "steps")
    hooks = training_generator.loop_hooks(model, callbacks, "test", batches.steps, batches.steps)
    result = training_generator._evaluate_batches(
        model, batches.epoch(), batches.steps, verbose, hooks, steps_as_samples=True
    )
    return result[0] if len(result) == 1 else result


def predict(model: Any, dataset: Any, steps: Any, verbose: int = 0, callbacks: Any = None) -> Any:
    batches = DatasetBatches(dataset, steps, "steps")
    hooks = training_generator.loop_hooks(model, callbacks, "predict", batches.steps, batches.steps)
    return training_generator.predict_batches(
        model, batches.epoch(), batches.steps, verbose, hooks, steps_as_samples=True
    )
