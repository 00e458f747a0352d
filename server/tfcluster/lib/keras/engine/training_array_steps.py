"""Model.fit / evaluate / predict given numpy arrays *and* a number of steps (TF 1.15, graph
mode). TF warns that arrays want `batch_size`, then runs its step-wise loop: every step
feeds the whole arrays as one batch, in their order (no shuffling, `batch_size` ignored); an
epoch's loss is the mean over its steps, prediction concatenates every step's outputs."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterator
from typing import Any

from tfcluster.lib.keras.engine import training_generator
from tfcluster.lib.keras.engine.loop_hooks import LoopHooks
from tfcluster.lib.keras.engine.training_generator import cut_samples

_log = logging.getLogger("tensorflow")

ARRAYS_WITH_STEPS = (
    "When passing input data as arrays, do not specify `steps_per_epoch`/`steps` argument. "
    "Please use `batch_size` instead."
)


def warn_arrays_with_steps() -> None:
    """TF 1.15's check_steps_argument: steps given with arrays only warn."""
    _log.warning(ARRAYS_WITH_STEPS)


def _whole(x: Any, y: Any, sample_weight: Any = None) -> Iterator[Any]:
    """The same batch, every step: the whole arrays."""
    return itertools.repeat((x, y, sample_weight))


def fit(
    model: Any,
    x: Any,
    y: Any,
    *,
    steps_per_epoch: int,
    epochs: int,
    verbose: int,
    callbacks: Any,
    validation_split: float,
    validation_data: Any,
    validation_steps: Any,
    validation_freq: int,
    initial_epoch: int,
    sample_weight: Any,
    class_weight: Any,
) -> Any:
    warn_arrays_with_steps()
    val: tuple[Any, Any, Any] | None = None
    if validation_data is not None:
        if len(validation_data) not in (2, 3):
            raise ValueError(
                "When passing a `validation_data` argument, it must contain either 2 items "
                "(x_val, y_val), or 3 items (x_val, y_val, val_sample_weights), or "
                "alternatively it could be a dataset or a dataset or a dataset iterator. "
                f"However we received `validation_data` as a list of {len(validation_data)}."
            )
        val_weight = validation_data[2] if len(validation_data) == 3 else None
        val = (validation_data[0], validation_data[1], val_weight)
    elif validation_split and 0.0 < validation_split < 1.0:
        samples = training_generator._batch_size(x)
        split_at = int(samples * (1.0 - validation_split))
        val = (
            cut_samples(x, split_at, None),
            cut_samples(y, split_at, None),
            cut_samples(sample_weight, split_at, None),
        )
        x, y = (
            cut_samples(x, None, split_at),
            cut_samples(y, None, split_at),
        )
        sample_weight = cut_samples(sample_weight, None, split_at)
    elif validation_steps:
        raise ValueError("`validation_steps` should not be specified if `validation_data` is None.")
    validation: training_generator.Validation | None = None
    if val is not None:
        arrays = val

        def on_arrays(last_size: int, hooks: LoopHooks) -> list[float]:
            if validation_steps is None:
                # TF 1.15 trains the epoch, then fails cutting the validation arrays into
                # batches of a size the step-wise fit never had.
                raise TypeError(
                    "fit() with arrays and `steps_per_epoch` validates step-wise too: give "
                    "`validation_steps` (TF 1.15 fails here as well: float() argument must "
                    "be a string or a number, not 'NoneType')"
                )
            return training_generator._evaluate_batches(
                model, _whole(*arrays), int(validation_steps), hooks=hooks, steps_as_samples=True
            )

        validation = on_arrays
    if verbose:
        # TF 1.15's _print_train_info counts the steps, calling them samples for arrays.
        message = f"Train on {steps_per_epoch} samples"
        if val is not None:
            message += f", validate on {training_generator._batch_size(val[0])} samples"
        print(message)
    return training_generator.fit_batches(
        model,
        lambda: itertools.islice(_whole(x, y, sample_weight), steps_per_epoch),
        steps_per_epoch,
        epochs=epochs,
        verbose=verbose,
        callbacks=callbacks,
        validation=validation,
        validation_freq=validation_freq,
        initial_epoch=initial_epoch,
        samples=steps_per_epoch,
        loss_by_steps=True,
        class_weight=class_weight,
    )


def evaluate(
    model: Any, x: Any, y: Any, sample_weight: Any, steps: int, verbose: int, callbacks: Any = None
) -> Any:
    warn_arrays_with_steps()
    hooks = training_generator.loop_hooks(model, callbacks, "test", steps, steps)
    result = training_generator._evaluate_batches(
        model, _whole(x, y, sample_weight), steps, verbose, hooks, steps_as_samples=True
    )
    return result[0] if len(result) == 1 else result


def predict(model: Any, x: Any, steps: int, verbose: int, callbacks: Any = None) -> Any:
    warn_arrays_with_steps()
    hooks = training_generator.loop_hooks(model, callbacks, "predict", steps, steps)
    return training_generator.predict_batches(
        model, itertools.repeat((x,)), steps, verbose, hooks, steps_as_samples=True
    )
