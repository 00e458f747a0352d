"""Model.fit_generator / evaluate_generator / predict_generator (TF 1.15, graph mode): batches
drawn from a Python generator or a keras.utils.Sequence, steps_per_epoch of them per epoch
(len(sequence) by default). As in TF 1.15, the epoch's loss and metrics are means over the
epoch's samples (an evaluation's loss: the mean over its steps).
Batches are drawn in the calling thread (no prefetching): workers only says whether TF would
take a Sequence through its enqueuer (shuffled, on_epoch_end) or not; use_multiprocessing is
accepted, unused."""

from __future__ import annotations

import itertools
import logging
import random
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from tfcluster.lib.keras import callbacks as cbks
from tfcluster.lib.keras.engine.loop_hooks import LoopHooks
from tfcluster.lib.keras.engine.loop_progress import LoopProgress

_log = logging.getLogger("tensorflow")


def _is_loss(name: str) -> bool:
    """The total loss, averaged over the epoch; everything else (an output's `<name>_loss`
    included: a Mean metric's running value in TF 1.15) is reported as it stands."""
    return name == "loss"


def reported(name: str, value: float) -> Any:
    """A value as TF 1.15's Keras reports it (and prints it): the total loss, which its
    MetricsAggregator sums in Python, as numpy float64; the rest as float32, the result of
    their float32 variables (a multi-output model's `<output>_loss` is a Mean metric's)."""
    return np.float64(value) if name == "loss" else np.float32(value)


def _is_sequence(data: Any) -> bool:
    from tfcluster.lib.keras.utils.data_utils import Sequence

    return isinstance(data, Sequence)


def _steps(data: Any, steps: Any, name: str) -> int:
    if steps is not None:
        return int(steps)
    if _is_sequence(data):
        return len(data)
    raise ValueError(
        f"`{name}=None` is only valid for a generator based on the `keras.utils.Sequence` "
        f"class. Please specify `{name}` or use the `keras.utils.Sequence` class."
    )


def _batches(data: Any, shuffle: bool, workers: int = 1) -> Iterator[Any]:
    """Endless batches: a Sequence's, pass after pass, or a generator's items. A Sequence goes
    as TF 1.15's OrderedEnqueuer takes it (workers > 0): one list of its indices, shuffled in
    place by Python's random.shuffle before each pass where the loop shuffles, on_epoch_end
    after each pass; with workers=0 (no enqueuer) in its own order, without on_epoch_end."""
    if _is_sequence(data):
        order = list(range(len(data)))
        while True:
            if shuffle and workers > 0:
                random.shuffle(order)
            for i in order:
                yield data[i]
            if workers > 0:
                data.on_epoch_end()
    # Not `yield from`: closing these batches (a loop done with them) must leave the
    # caller's generator open, as TF's loops do; the next loop goes on reading it.
    for batch in data:  # noqa: UP028 (see above)
        yield batch


def _unpack(batch: Any, with_targets: bool = True) -> tuple[Any, Any, Any]:
    if not isinstance(batch, tuple):
        if with_targets:
            raise ValueError(
                "Output of generator should be a tuple `(x, y, sample_weight)` or `(x, y)`. "
                f"Found: {batch}"
            )
        return batch, None, None
    if len(batch) == 2:
        return batch[0], batch[1], None
    if len(batch) == 3:
        return batch[0], batch[1], batch[2]
    if len(batch) == 1 and not with_targets:
        return batch[0], None, None
    raise ValueError(
        f"Output of generator should be a tuple `(x, y, sample_weight)` or `(x, y)`. Found: {batch}"
    )


def _batch_size(x: Any) -> int:
    if x is None:
        return 1  # a step of a model fed by its own tensors
    first = (
        x[0]
        if isinstance(x, (list, tuple))
        else (next(iter(x.values())) if isinstance(x, dict) else x)
    )
    return int(np.shape(first)[0])


class _Aggregate:
    """Epoch values as TF 1.15's MetricsAggregator makes them in its step-wise loops: the
    loss as the mean over the epoch's steps (or over its samples, loss_by_steps=False), the
    metrics as their running values (the batches run without resetting them). Batch logs
    carry the batch's loss and the running metrics."""

    def __init__(self, names: list[str], loss_by_steps: bool = False) -> None:
        self.names = names
        self.loss_by_steps = loss_by_steps
        self.loss_sums = np.zeros(len(names))
        self.metrics = np.zeros(len(names))
        self.steps = 0
        self.samples = 0

    def add(self, values: list[Any], size: int) -> dict[str, Any]:
        """Adds a batch's values; returns its logs, the values as the session gave them
        (numpy scalars, as TF 1.15's batch logs hold)."""
        self.steps += 1
        self.samples += size
        logs: dict[str, Any] = {}
        for i, (name, value) in enumerate(zip(self.names, values)):
            if _is_loss(name):
                # TF 1.15's BaseLogger weighs a batch's loss by its size under numpy 1.x's
                # promotion: float32 * int gives float64 (numpy 2 would keep float32).
                self.loss_sums[i] += value if self.loss_by_steps else np.float64(value) * size
            else:
                self.metrics[i] = value
            logs[name] = value
        return logs

    def result(self) -> list[Any]:
        out = []
        for i, name in enumerate(self.names):
            if _is_loss(name):
                count = self.steps if self.loss_by_steps else self.samples
                out.append(reported(name, self.loss_sums[i] / max(count, 1)))
            else:
                out.append(reported(name, self.metrics[i]))
        return out


def _as_list(values: Any) -> list[Any]:
    return list(values) if isinstance(values, list) else [values]


def fit_generator(
    model: Any,
    generator: Any,
    steps_per_epoch: Any = None,
    epochs: int = 1,
    verbose: int = 1,
    callbacks: Any = None,
    validation_data: Any = None,
    validation_steps: Any = None,
    validation_freq: int = 1,
    class_weight: Any = None,
    shuffle: bool = True,
    initial_epoch: int = 0,
    workers: int = 1,
) -> Any:
    steps = _steps(generator, steps_per_epoch, "steps_per_epoch")
    batches = _batches(generator, shuffle, workers)
    return fit_batches(
        model,
        lambda: itertools.islice(batches, steps),
        steps,
        epochs=epochs,
        verbose=verbose,
        callbacks=callbacks,
        validation=_generator_validation(
            model, validation_data, validation_steps, _Shown(verbose, epochs, steps), workers
        ),
        validation_freq=validation_freq,
        initial_epoch=initial_epoch,
        samples=steps,  # TF 1.15's params count a generator's steps as its samples
        class_weight=class_weight,
        keeps_verbose=True,  # its generator loop leaves the params' verbose as fit's
    )


# How fit evaluates after an epoch, given the last training batch's size and the fit's
# callbacks' test hooks.
Validation = Callable[[int, LoopHooks], list[float]]


class _Shown:
    """How fit_generator's validation shows its progress: TF 1.15 runs it through a loop of
    its own with fit's verbose, whose progress bar (counting steps, or samples for arrays)
    takes the training's params: "Epoch 1/<epochs>" (epochs > 1), then the bar with the
    training's steps as its target, before the epoch's own line."""

    def __init__(self, verbose: int, epochs: int, steps: int) -> None:
        self.verbose, self.epochs, self.steps = verbose, epochs, steps

    def progress(self, model: Any, count_mode: str) -> LoopProgress:
        names = list(model.metrics_names)
        return LoopProgress(self.verbose, count_mode, self.steps, names, epochs=self.epochs)


def _generator_validation(
    model: Any,
    validation_data: Any,
    validation_steps: Any,
    shown: _Shown | None = None,
    workers: int = 1,
) -> Validation | None:
    """How fit_generator evaluates after an epoch (given the last training batch's size): a
    validation Sequence from its first batch each time (TF 1.15 runs a loop of its own over
    it), a generator from where it stands; its progress shown as `shown` says (None: not
    shown, as a dataset fit's validation)."""
    shown = shown or _Shown(0, 1, 0)
    if validation_data is None:
        return None
    if isinstance(validation_data, (list, tuple)) and not _is_sequence(validation_data):
        arrays = validation_data

        def on_arrays(last_size: int, hooks: LoopHooks) -> list[float]:
            # TF 1.15 cuts validation arrays in batches of the last training batch's size.
            steps = -(-_batch_size(arrays[0]) // last_size)
            return _evaluate_batches(
                model,
                _array_batches(arrays, last_size),
                steps,
                hooks=hooks,
                progress=shown.progress(model, "samples"),
            )

        return on_arrays
    steps = _steps(validation_data, validation_steps, "validation_steps")
    if _is_sequence(validation_data):
        return lambda last_size, hooks: _evaluate_batches(
            model,
            _batches(validation_data, False, workers),
            steps,
            hooks=hooks,
            progress=shown.progress(model, "steps"),
        )
    batches = _batches(validation_data, False)
    return lambda last_size, hooks: _evaluate_batches(
        model, batches, steps, hooks=hooks, progress=shown.progress(model, "steps")
    )


def fit_batches(
    model: Any,
    epoch_batches: Callable[[], Iterator[Any]],
    steps: int | None,
    epochs: int = 1,
    verbose: int = 1,
    callbacks: Any = None,
    validation: Validation | None = None,
    validation_freq: int = 1,
    initial_epoch: int = 0,
    samples: int | None = None,
    loss_by_steps: bool = False,
    class_weight: Any = None,
    keeps_verbose: bool = False,
) -> Any:
    """The training loop over batches: epoch_batches() gives each epoch's (steps of them, or
    until the source is exhausted when steps is None). A source that runs out before
    `steps` stops training, with TF's warning. An epoch's loss is the mean over its samples
    (generators, as TF 1.15's fit_generator) or over its steps (datasets, loss_by_steps)."""
    batches = epoch_batches()
    try:
        first = next(batches)
    except StopIteration:
        raise ValueError("The input gave no batch to train on.") from None
    x, y, sample_weight = _unpack(first)
    if not model._compiled:
        raise RuntimeError(
            "You must compile your model before training/testing. Use "
            "`model.compile(optimizer, loss)`."
        )
    model._ensure_built(model._standardize(x, y)[0])
    model._ensure_compiled(for_training=True)
    names = list(model.metrics_names)
    do_validation = validation is not None
    callback_metrics = names + (["val_" + n for n in names] if do_validation else [])
    model.history = cbks.History()
    callback_list = [*(callbacks or []), model.history]
    if verbose:
        stateful = [n for n in names if not _is_loss(n)]
        progbar = cbks.ProgbarLogger("steps", stateful_metrics=stateful)
        progbar.verbose_level = verbose
        callback_list.append(progbar)
    clist = cbks.CallbackList(callback_list)
    # TF 1.15's callback parameters, in its order; `verbose` is fit's (its loop sets it in
    # the dict it shares with the callbacks after configuring them).
    params = {
        "batch_size": None, "epochs": epochs, "steps": steps, "samples": samples,
        "verbose": verbose, "do_validation": do_validation, "metrics": callback_metrics,
    }  # fmt: skip
    for cb in callback_list:
        cb.validation_data = None
        cb.set_model(model)
        cb.set_params(params)
    model.stop_training = False
    this_epoch: Iterator[Any] = itertools.chain([first], batches)
    clist.on_train_begin()
    for epoch in range(initial_epoch, epochs):
        if epoch != initial_epoch:
            this_epoch = epoch_batches()
        # TF 1.15 starts each epoch's metrics from zero (a fit before may have left them).
        model.reset_metrics()
        clist.on_epoch_begin(epoch)
        aggregate = _Aggregate(names, loss_by_steps=loss_by_steps)
        size = 0
        step = 0
        for step, batch in enumerate(this_epoch):
            x, y, sample_weight = _unpack(batch)
            size = _batch_size(x)
            # TF 1.15's step-wise loops (datasets, arrays by steps) count a step as size 1.
            logs: dict[str, Any] = {"batch": step, "size": 1 if loss_by_steps else size}
            clist.on_train_batch_begin(step, logs)
            values = _as_list(
                model.train_on_batch(
                    x,
                    y,
                    sample_weight=sample_weight,
                    class_weight=class_weight,
                    reset_metrics=False,
                )
            )
            logs.update(aggregate.add(values, size))
            clist.on_train_batch_end(step, logs)
            if model.stop_training:
                break
        if steps is None and aggregate.steps and not model.stop_training:
            # TF 1.15 learns an unknown dataset's size when it runs out: the bar gets it as
            # its target before the epoch's end is shown.
            steps = aggregate.steps
            if verbose:
                progbar.params["steps"] = steps
                progbar.progbar.target = steps
        if steps is not None and aggregate.steps < steps and not model.stop_training:
            _log.warning(
                "Your input ran out of data; interrupting training. Make sure that your "
                "dataset or generator can generate at least `steps_per_epoch * epochs` "
                "batches (in this case, %d batches). You may need to use the repeat() "
                "function when building your dataset.",
                steps * epochs,
            )
            model.stop_training = True
        epoch_logs = dict(zip(names, aggregate.result()))
        if validation is not None and (epoch + 1) % validation_freq == 0 and aggregate.steps:
            for name, value in zip(names, validation(size, LoopHooks(clist, "test"))):
                epoch_logs["val_" + name] = value
            if not keeps_verbose:
                # TF 1.15's array/dataset loop validates through itself, setting its own
                # verbose (0) in the params it shares with the callbacks.
                params["verbose"] = 0
        clist.on_epoch_end(epoch, epoch_logs)
        if model.stop_training:
            break
    clist.on_train_end()
    return model.history


def cut_samples(a: Any, start: int | None, stop: int | None) -> Any:
    """Samples [start:stop) of an array, of a list/tuple of them or a dict of them (None
    stays None)."""
    if a is None:
        return None
    if isinstance(a, (list, tuple)):
        return [cut_samples(v, start, stop) for v in a]
    if isinstance(a, dict):
        return {k: cut_samples(v, start, stop) for k, v in a.items()}
    return a[start:stop]


def _array_batches(arrays: Any, size: int) -> Iterator[Any]:
    x, y = arrays[0], arrays[1]
    total = _batch_size(x)
    while True:
        for start in range(0, total, size):
            yield cut_samples(x, start, start + size), cut_samples(y, start, start + size)


def model_unimplemented(what: str) -> Exception:
    from tfcluster.lib.keras import backend

    return backend.unimplemented(what)


def _evaluate_batches(
    model: Any,
    batches: Iterator[Any],
    steps: int | None,
    verbose: int = 0,
    hooks: LoopHooks | None = None,
    steps_as_samples: bool = False,
    progress: LoopProgress | None = None,
) -> list[float]:
    """The loss (mean over steps) and metrics (over samples) of `steps` batches, or of all
    the batches when steps is None. The hooks' batch logs give a step's size as 1 in TF's
    step-wise loops (steps_as_samples: datasets, arrays by steps)."""
    names = list(model.metrics_names)
    aggregate = _Aggregate(names, loss_by_steps=True)
    model.reset_metrics()  # TF 1.15's loop starts from zero (a fit before leaves its state)
    hooks = hooks or LoopHooks(None, "test")
    hooks.begin()
    if progress is None:
        progress = LoopProgress(verbose, "steps", steps, names)
    for step, batch in enumerate(itertools.islice(batches, steps)):
        x, y, sample_weight = _unpack(batch)
        size = _batch_size(x)
        hooks.batch_begin(step, 1 if steps_as_samples else size)
        values = _as_list(
            model.test_on_batch(x, y, sample_weight=sample_weight, reset_metrics=False)
        )
        logs = aggregate.add(values, size)
        hooks.batch_end(step, logs)
        progress.batch(size, logs)
    results = aggregate.result()
    progress.end(dict(zip(names, results)))
    hooks.end()
    return results


def loop_hooks(model: Any, callbacks: Any, mode: str, steps: int | None, samples: Any) -> LoopHooks:
    """The hooks of a step-wise evaluate's or predict's own callbacks, with TF 1.15's loop
    parameters."""
    params = {"batch_size": None, "steps": steps, "samples": samples, "verbose": 0}
    return LoopHooks(cbks.configured(callbacks, model, mode, params), mode)


def evaluate_generator(
    model: Any, generator: Any, steps: Any = None, verbose: int = 0, callbacks: Any = None
) -> Any:
    steps = _steps(generator, steps, "steps")
    hooks = loop_hooks(model, callbacks, "test", steps, steps)
    result = _evaluate_batches(model, _batches(generator, False), steps, verbose, hooks)
    return result[0] if len(result) == 1 else result


def predict_generator(
    model: Any, generator: Any, steps: Any = None, verbose: int = 0, callbacks: Any = None
) -> Any:
    steps = _steps(generator, steps, "steps")
    hooks = loop_hooks(model, callbacks, "predict", steps, steps)
    return predict_batches(model, _batches(generator, False), steps, verbose, hooks)


def predict_batches(
    model: Any,
    batches: Iterator[Any],
    steps: int | None,
    verbose: int = 0,
    hooks: LoopHooks | None = None,
    steps_as_samples: bool = False,
) -> Any:
    outputs: list[Any] = []
    model.reset_metrics()  # TF 1.15's loop starts every mode from zeroed metrics
    hooks = hooks or LoopHooks(None, "predict")
    hooks.begin()
    progress = LoopProgress(verbose, "steps", steps, [])
    for step, batch in enumerate(itertools.islice(batches, steps)):
        x, _, _ = _unpack(batch, with_targets=False)
        size = _batch_size(x)
        hooks.batch_begin(step, 1 if steps_as_samples else size)
        out = model.predict_on_batch(x)
        outputs.append(out if isinstance(out, list) else [out])
        hooks.batch_end(step, {"outputs": outputs[-1]})
        progress.batch(size)
    progress.end()
    hooks.end()
    if not outputs:
        return []
    joined = [np.concatenate([o[i] for o in outputs]) for i in range(len(outputs[0]))]
    return joined[0] if len(joined) == 1 else joined
