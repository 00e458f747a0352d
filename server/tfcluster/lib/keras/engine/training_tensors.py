"""Model.fit / evaluate / predict of a model that feeds itself (TF 1.15, graph mode): built
on `Input(tensor=...)` (a constant, a tf.data iterator's get_next()) and compiled with
`target_tensors`, called with x=None. TF 1.15 runs its step-wise loop: every step runs the
model on its own tensors (feeding only the learning phase), `steps` of them; an epoch's loss
is the mean over its steps, prediction concatenates every step's outputs. Without steps it
raises its ValueError, as it does for a batch size other than the Input's own."""

from __future__ import annotations

import itertools
from typing import Any

from tfcluster.lib.keras import backend
from tfcluster.lib.keras.engine import training_generator

# What each step unpacks to: no arrays, the model feeds itself.
_NOTHING = (None, None, None)


def static_batch_size(model: Any) -> int | None:
    """TF 1.15's get_static_batch_size of the model's first layer (its InputLayer's)."""
    layers = model._layers if hasattr(model, "_layers") else model.layers
    if not layers:
        return None
    shape = getattr(layers[0], "_batch_input_shape", None)
    return None if not shape else shape[0]


def check_arguments(model: Any, batch_size: Any, steps: Any, steps_name: str) -> None:
    """TF 1.15's checks of a call with no data, in its order: a batch size other than the
    Input's, no steps, then a placeholder input left without an array (a batch size given
    with steps is ignored)."""
    static = static_batch_size(model)
    if static is not None and batch_size is not None and batch_size != static:
        raise ValueError(
            f"The `batch_size` argument value {batch_size} is incompatible with the specified "
            f"batch size of your Input Layer: {static}"
        )
    if steps is None:
        raise ValueError(
            "When using data tensors as input to a model, you should specify the "
            f"`{steps_name}` argument."
        )
    if model._feed_inputs():
        # TF 1.15 fails making the feed of a placeholder input that got no array.
        raise TypeError("Could not build a TypeSpec for None with type NoneType")


def fit(
    model: Any,
    *,
    batch_size: Any,
    steps_per_epoch: Any,
    epochs: int,
    verbose: int,
    callbacks: Any,
    validation_data: Any,
    validation_split: float,
    initial_epoch: int,
) -> Any:
    check_arguments(model, batch_size, steps_per_epoch, "steps_per_epoch")
    if validation_data is not None or validation_split:
        raise backend.unimplemented(
            "tf.keras.Model.fit(x=None, validation_data=...) of a model fed by its own tensors"
        )
    steps = int(steps_per_epoch)
    if verbose:
        # TF 1.15's _print_train_info counts the steps, calling them samples.
        print(f"Train on {steps} samples")
    return training_generator.fit_batches(
        model,
        lambda: itertools.islice(itertools.repeat(_NOTHING), steps),
        steps,
        epochs=epochs,
        verbose=verbose,
        callbacks=callbacks,
        initial_epoch=initial_epoch,
        samples=steps,
        loss_by_steps=True,
    )


def evaluate(model: Any, batch_size: Any, steps: Any, verbose: int, callbacks: Any = None) -> Any:
    check_arguments(model, batch_size, steps, "steps")
    steps = int(steps)
    hooks = training_generator.loop_hooks(model, callbacks, "test", steps, steps)
    result = training_generator._evaluate_batches(
        model, itertools.repeat(_NOTHING), steps, verbose, hooks, steps_as_samples=True
    )
    return result[0] if len(result) == 1 else result


def predict(model: Any, batch_size: Any, steps: Any, verbose: int, callbacks: Any = None) -> Any:
    check_arguments(model, batch_size, steps, "steps")
    steps = int(steps)
    hooks = training_generator.loop_hooks(model, callbacks, "predict", steps, steps)
    return training_generator.predict_batches(
        model, itertools.repeat((None,)), steps, verbose, hooks, steps_as_samples=True
    )
