"""Model.fit / evaluate / predict on data tensors (TF 1.15, graph mode): a model that feeds
itself (built on `Input(tensor=...)`, a constant or a tf.data iterator's get_next(), compiled
with `target_tensors`) called with x=None, or symbolic tensors given as x and y. TF 1.15 runs
its step-wise loop: every step runs the model on the tensors (the given ones computed and fed
that step), `steps` of them; an epoch's loss is the mean over its steps, prediction
concatenates every step's outputs. Without steps it raises its ValueError, as it does for a
batch size other than the Input's own."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from tfcluster.framework.graph import Tensor
from tfcluster.lib.keras import backend
from tfcluster.lib.keras.engine import training_generator
from tfcluster.lib.keras.engine.loop_hooks import LoopHooks


def has_symbolic_tensors(data: Any) -> bool:
    """TF's has_symbolic_tensors: a Tensor, or a list/tuple/dict holding one."""
    if isinstance(data, Tensor):
        return True
    if isinstance(data, dict):
        return any(isinstance(v, Tensor) for v in data.values())
    if isinstance(data, (list, tuple)):
        return any(isinstance(v, Tensor) for v in data)
    return False


def evaluate_tensors(x: Any, y: Any) -> tuple[Any, Any]:
    """x and y with their tensors replaced by one run's values."""
    parts: list[Any] = [x, y]
    found: list[tuple[int, Any, Tensor]] = []
    for i, part in enumerate(parts):
        if isinstance(part, Tensor):
            found.append((i, None, part))
        elif isinstance(part, dict):
            parts[i] = dict(part)
            found.extend((i, k, v) for k, v in part.items() if isinstance(v, Tensor))
        elif isinstance(part, (list, tuple)):
            parts[i] = list(part)
            found.extend((i, k, v) for k, v in enumerate(part) if isinstance(v, Tensor))
    tensors = [t for _, _, t in found]
    values = backend.get_session(tensors).run(tensors) if tensors else []
    for (i, key, _), value in zip(found, values):
        if key is None:
            parts[i] = value
        else:
            parts[i][key] = value
    return parts[0], parts[1]


def _steps_of(x: Any, y: Any, with_targets: bool = True) -> Iterator[Any]:
    """Each step's batch: nothing for a model fed by its own tensors, else the values the
    data tensors have that step."""
    while True:
        if x is None and y is None:
            yield (None, None, None) if with_targets else (None,)
            continue
        xv, yv = evaluate_tensors(x, y)
        yield (xv, yv, None) if with_targets else (xv,)


def static_batch_size(model: Any) -> int | None:
    """TF 1.15's get_static_batch_size of the model's first layer (its InputLayer's)."""
    layers = model._layers if hasattr(model, "_layers") else model.layers
    if not layers:
        return None
    shape = getattr(layers[0], "_batch_input_shape", None)
    return None if not shape else shape[0]


def check_arguments(
    model: Any, batch_size: Any, steps: Any, steps_name: str, data: Any = None
) -> None:
    """TF 1.15's checks of a call on data tensors, in its order: a batch size other than the
    Input's, no steps, then a placeholder input left without data (a batch size given with
    steps is ignored)."""
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
    if data is None and model._feed_inputs():
        # TF 1.15 fails making the feed of a placeholder input that got no array.
        raise TypeError("Could not build a TypeSpec for None with type NoneType")


def fit(
    model: Any,
    x: Any,
    y: Any,
    *,
    batch_size: Any,
    steps_per_epoch: Any,
    epochs: int,
    verbose: int,
    callbacks: Any,
    validation_data: Any,
    validation_split: float,
    validation_steps: Any,
    validation_freq: int,
    initial_epoch: int,
) -> Any:
    check_arguments(model, batch_size, steps_per_epoch, "steps_per_epoch", x)
    if validation_split and has_symbolic_tensors(x):
        raise ValueError(
            "If your data is in the form of symbolic tensors, you cannot use `validation_split`."
        )
    if validation_split and x is None:
        # TF 1.15 splits the (empty) list of input arrays at fit's start and fails indexing it.
        raise IndexError("list index out of range")
    steps = int(steps_per_epoch)
    batches = _steps_of(x, y)
    validation = None
    message = f"Train on {steps} samples"
    if validation_data is not None:
        validation = _validation(model, validation_data, validation_steps, self_fed=x is None)
        if x is not None:
            # A self-fed model's validation inputs standardize to no arrays: TF prints none.
            message += f", validate on {_samples(validation_data[0])} samples"
    if verbose:
        # TF 1.15's _print_train_info counts the steps, calling them samples.
        print(message)
    return training_generator.fit_batches(
        model,
        lambda: itertools.islice(batches, steps),
        steps,
        epochs=epochs,
        verbose=verbose,
        callbacks=callbacks,
        validation=validation,
        validation_freq=validation_freq,
        initial_epoch=initial_epoch,
        samples=steps,
        loss_by_steps=True,
    )


def _samples(x: Any) -> Any:
    """The first dimension of validation data's first part (a tensor's static one)."""
    first = x if not isinstance(x, (list, tuple)) else x[0]
    if isinstance(first, dict):
        first = next(iter(first.values()))
    if isinstance(first, Tensor):
        return first.shape.as_list()[0]
    return len(first)


def _validation(
    model: Any, data: Any, steps: Any, self_fed: bool = False
) -> training_generator.Validation:
    """fit's step-wise validation on (x, y[, sample_weight]): tensors run each step, arrays
    whole each step; `steps` of them. A model fed by its own tensors (fit with x=None)
    validates on those tensors, whichever tensors are given (TF 1.15 connects them to
    themselves), and refuses arrays at once."""
    if len(data) not in (2, 3):
        raise ValueError(
            "When passing a `validation_data` argument, it must contain either 2 items "
            "(x_val, y_val), or 3 items (x_val, y_val, val_sample_weights), or "
            "alternatively it could be a dataset or a dataset or a dataset iterator. "
            f"However we received `validation_data` as a list of {len(data)}."
        )
    vx, vy = data[0], data[1]
    symbolic = has_symbolic_tensors(vx)
    if self_fed and not symbolic and not model._feed_inputs():
        raise ValueError("Error when checking model input: expected no data, but got:", vx)
    if self_fed and len(data) == 3 and not isinstance(data[2], (list, dict)):
        # TF 1.15 standardizes the weights against no fed outputs: its multi-output message.
        raise TypeError(
            "The model has multiple outputs, so `sample_weight` should be either a list or a "
            f"dict. Provided `sample_weight` type not understood: {data[2]}"
        )
    if self_fed:
        vx = vy = None

    def run(last_size: int, hooks: LoopHooks) -> list[float]:
        if steps is None:
            # TF 1.15's validation loop asks for steps under fit's name, after the epoch.
            if symbolic:
                raise ValueError(
                    "When using data tensors as input to a model, you should specify the "
                    "`steps_per_epoch` argument."
                )
            raise TypeError(
                "fit() on data tensors validates step-wise: give `validation_steps` (TF "
                "1.15 fails here as well: float() argument must be a string or a number, "
                "not 'NoneType')"
            )
        batches = _steps_of(vx, vy) if symbolic or self_fed else itertools.repeat((vx, vy, None))
        return training_generator._evaluate_batches(
            model, batches, int(steps), hooks=hooks, steps_as_samples=True
        )

    return run


def evaluate(
    model: Any, x: Any, y: Any, batch_size: Any, steps: Any, verbose: int, callbacks: Any = None
) -> Any:
    check_arguments(model, batch_size, steps, "steps", x)
    steps = int(steps)
    hooks = training_generator.loop_hooks(model, callbacks, "test", steps, steps)
    result = training_generator._evaluate_batches(
        model, _steps_of(x, y), steps, verbose, hooks, steps_as_samples=True
    )
    return result[0] if len(result) == 1 else result


def predict(
    model: Any, x: Any, batch_size: Any, steps: Any, verbose: int, callbacks: Any = None
) -> Any:
    check_arguments(model, batch_size, steps, "steps", x)
    steps = int(steps)
    hooks = training_generator.loop_hooks(model, callbacks, "predict", steps, steps)
    return training_generator.predict_batches(
        model, _steps_of(x, None, False), steps, verbose, hooks, steps_as_samples=True
    )
