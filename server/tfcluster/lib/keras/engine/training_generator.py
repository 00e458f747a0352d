"""Model.fit_generator / evaluate_generator / predict_generator (TF 1.15, graph mode): batches
drawn from a Python generator or a keras.utils.Sequence, steps_per_epoch of them per epoch
(len(sequence) by default). As in TF 1.15, the epoch's loss and metrics are means over the
epoch's samples (an evaluation's loss: the mean over its steps).
Batches are drawn in the calling thread: workers/use_multiprocessing are accepted, unused."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from tfcluster.lib.keras import callbacks as cbks


def _is_loss(name: str) -> bool:
    return name == "loss" or name.endswith("_loss")


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


def _batches(data: Any, shuffle: bool) -> Iterator[Any]:
    """Endless batches: a Sequence's, epoch after epoch (on_epoch_end between), or a
    generator's items."""
    if _is_sequence(data):
        while True:
            order = np.arange(len(data))
            if shuffle:
                np.random.shuffle(order)
            for i in order:
                yield data[int(i)]
            data.on_epoch_end()
    yield from data


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
    first = (
        x[0]
        if isinstance(x, (list, tuple))
        else (next(iter(x.values())) if isinstance(x, dict) else x)
    )
    return int(np.shape(first)[0])


class _Aggregate:
    """Epoch values as means over the epoch's samples; an evaluation's loss as the mean over
    its steps (what TF 1.15 reports for each: recorded against it). Batch logs carry the
    batch's loss and the running metrics."""

    def __init__(self, names: list[str], loss_by_steps: bool = False) -> None:
        self.names = names
        self.loss_by_steps = loss_by_steps
        self.loss_sums = np.zeros(len(names))
        self.metric_sums = np.zeros(len(names))
        self.steps = 0
        self.samples = 0

    def add(self, values: list[float], size: int) -> dict[str, float]:
        self.steps += 1
        self.samples += size
        logs: dict[str, float] = {}
        for i, (name, value) in enumerate(zip(self.names, values)):
            if _is_loss(name):
                self.loss_sums[i] += value if self.loss_by_steps else value * size
                logs[name] = float(value)
            else:
                self.metric_sums[i] += value * size
                logs[name] = float(self.metric_sums[i] / self.samples)
        return logs

    def result(self) -> list[float]:
        out = []
        for i, name in enumerate(self.names):
            if _is_loss(name):
                count = self.steps if self.loss_by_steps else self.samples
                out.append(float(self.loss_sums[i] / max(count, 1)))
            else:
                out.append(float(self.metric_sums[i] / max(self.samples, 1)))
        return out


def _as_list(values: Any) -> list[float]:
    return [float(v) for v in (values if isinstance(values, list) else [values])]


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
) -> Any:
    if class_weight is not None:
        raise model_unimplemented("tf.keras.Model.fit_generator(class_weight=...)")
    steps = _steps(generator, steps_per_epoch, "steps_per_epoch")
    batches = _batches(generator, shuffle)
    val_arrays = None
    val_batches: Iterator[Any] | None = None
    val_steps = 0
    do_validation = validation_data is not None
    if do_validation:
        if isinstance(validation_data, (list, tuple)) and not _is_sequence(validation_data):
            val_arrays = validation_data
        else:
            val_steps = _steps(validation_data, validation_steps, "validation_steps")
            val_batches = _batches(validation_data, False)
    first = next(batches)
    x, y, sample_weight = _unpack(first)
    if not model._compiled:
        raise RuntimeError(
            "You must compile your model before training/testing. Use "
            "`model.compile(optimizer, loss)`."
        )
    model._ensure_built(model._standardize(x, y)[0])
    model._ensure_compiled(for_training=True)
    names = list(model.metrics_names)
    callback_metrics = names + (["val_" + n for n in names] if do_validation else [])
    model.history = cbks.History()
    callback_list = [*(callbacks or []), model.history]
    if verbose:
        stateful = [n for n in names if not _is_loss(n)]
        progbar = cbks.ProgbarLogger("steps", stateful_metrics=stateful)
        progbar.verbose_level = verbose
        callback_list.append(progbar)
    clist = cbks.CallbackList(callback_list)
    params = {
        "epochs": epochs, "steps": steps, "verbose": 0, "do_validation": do_validation,
        "metrics": callback_metrics, "samples": None, "batch_size": None,
    }  # fmt: skip
    for cb in callback_list:
        cb.validation_data = None
        cb.set_model(model)
        cb.set_params(params)
    model.stop_training = False
    pending: Any = first
    clist.on_train_begin()
    for epoch in range(initial_epoch, epochs):
        clist.on_epoch_begin(epoch)
        aggregate = _Aggregate(names)
        for step in range(steps):
            batch = pending if pending is not None else next(batches)
            pending = None
            x, y, sample_weight = _unpack(batch)
            size = _batch_size(x)
            clist.on_train_batch_begin(step, {"batch": step, "size": size})
            values = _as_list(model.train_on_batch(x, y, sample_weight=sample_weight))
            logs: dict[str, Any] = {"batch": step, "size": size, **aggregate.add(values, size)}
            clist.on_train_batch_end(step, logs)
            if model.stop_training:
                break
        epoch_logs = dict(zip(names, aggregate.result()))
        if do_validation and (epoch + 1) % validation_freq == 0:
            if val_arrays is not None:
                # TF 1.15 cuts validation arrays in batches of the last training batch's size.
                val = _evaluate_batches(
                    model, _array_batches(val_arrays, size), -(-_batch_size(val_arrays[0]) // size)
                )
            else:
                assert val_batches is not None
                val = _evaluate_batches(model, val_batches, val_steps)
            for name, value in zip(names, val):
                epoch_logs["val_" + name] = value
        clist.on_epoch_end(epoch, epoch_logs)
        if model.stop_training:
            break
    clist.on_train_end()
    return model.history


def _array_batches(arrays: Any, size: int) -> Iterator[Any]:
    x, y = arrays[0], arrays[1]

    def cut(a: Any, start: int) -> Any:
        if isinstance(a, (list, tuple)):
            return [v[start : start + size] for v in a]
        if isinstance(a, dict):
            return {k: v[start : start + size] for k, v in a.items()}
        return a[start : start + size]

    total = _batch_size(x)
    while True:
        for start in range(0, total, size):
            yield cut(x, start), cut(y, start)


def model_unimplemented(what: str) -> Exception:
    from tfcluster.lib.keras import backend

    return backend.unimplemented(what)


def _evaluate_batches(model: Any, batches: Iterator[Any], steps: int) -> list[float]:
    aggregate = _Aggregate(list(model.metrics_names), loss_by_steps=True)
    for _ in range(steps):
        x, y, sample_weight = _unpack(next(batches))
        values = _as_list(model.test_on_batch(x, y, sample_weight=sample_weight))
        aggregate.add(values, _batch_size(x))
    return aggregate.result()


def evaluate_generator(model: Any, generator: Any, steps: Any = None, verbose: int = 0) -> Any:
    steps = _steps(generator, steps, "steps")
    result = _evaluate_batches(model, _batches(generator, False), steps)
    return result[0] if len(result) == 1 else result


def predict_generator(model: Any, generator: Any, steps: Any = None, verbose: int = 0) -> Any:
    steps = _steps(generator, steps, "steps")
    batches = _batches(generator, False)
    outputs: list[Any] = []
    for _ in range(steps):
        x, _, _ = _unpack(next(batches), with_targets=False)
        out = model.predict_on_batch(x)
        outputs.append(out if isinstance(out, list) else [out])
    if not outputs:
        return []
    joined = [np.concatenate([o[i] for o in outputs]) for i in range(len(outputs[0]))]
    return joined[0] if len(joined) == 1 else joined
