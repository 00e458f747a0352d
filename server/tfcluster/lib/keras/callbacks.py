"""tf.keras.callbacks (TF 1.15): hooks fit/evaluate call around epochs and batches. History
and the progress bar (ProgbarLogger) are added by fit itself."""

from __future__ import annotations

import csv
import logging
import os
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.lib.keras import backend
from tfcluster.lib.keras.utils.generic_utils import Progbar


class Callback:
    def __init__(self) -> None:
        self.validation_data = None
        self.model: Any = None
        self.params: dict[str, Any] = {}

    def set_params(self, params: dict[str, Any]) -> None:
        self.params = params

    def set_model(self, model: Any) -> None:
        self.model = model

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None: ...
    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None: ...
    def on_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None: ...
    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None: ...
    # TF 1.15 forwards the training batch hooks with `logs=` as a keyword: a LambdaCallback
    # batch hook whose second parameter has another name fails there as here.
    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None: ...
    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None: ...
    def on_predict_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None: ...
    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None: ...
    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None: ...
    def on_train_end(self, logs: dict[str, Any] | None = None) -> None: ...
    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None: ...
    def on_test_end(self, logs: dict[str, Any] | None = None) -> None: ...
    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None: ...
    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None: ...


class CallbackList:
    """The callbacks of one fit, evaluate or predict, called as TF 1.15's CallbackList calls
    them: each hook on every callback in order, logs positional (None for the begin and end
    hooks, a dict, possibly empty, for the epoch and batch hooks)."""

    def __init__(self, callbacks: list[Callback]) -> None:
        self.callbacks = list(callbacks)

    def _each(self, hook: str, *args: Any) -> None:
        for callback in self.callbacks:
            getattr(callback, hook)(*args)

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._each("on_train_begin", logs)

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        self._each("on_train_end", logs)

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._each("on_epoch_begin", epoch, logs or {})

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._each("on_epoch_end", epoch, logs or {})

    def on_mode_begin(self, mode: str) -> None:
        """on_train_begin, on_test_begin or on_predict_begin."""
        self._each(f"on_{mode}_begin", None)

    def on_mode_end(self, mode: str) -> None:
        self._each(f"on_{mode}_end", None)

    def on_mode_batch(self, mode: str, hook: str, batch: int, logs: dict[str, Any]) -> None:
        """on_<mode>_batch_<hook> (mode train/test/predict, hook begin/end)."""
        self._each(f"on_{mode}_batch_{hook}", batch, logs)

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self.on_mode_batch("train", "begin", batch, logs or {})

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self.on_mode_batch("train", "end", batch, logs or {})


def configured(callbacks: Any, model: Any, mode: str, params: dict[str, Any]) -> CallbackList:
    """The user's callbacks of an evaluate or predict, given the model and TF 1.15's
    parameters of that loop (no History or progress bar: TF adds those to fit only)."""
    callback_list = list(callbacks or [])
    for callback in callback_list:
        callback.set_model(model)
        callback.set_params(
            {**params, "epochs": 1, "do_validation": False,
             "metrics": [] if mode == "predict" else list(model.metrics_names)}
        )  # fmt: skip
    return CallbackList(callback_list)


class BaseLogger(Callback):
    """Averages the batch values into epoch logs (fit does this itself; kept for programs
    that name it)."""

    def __init__(self, stateful_metrics: Any = None) -> None:
        super().__init__()
        self.stateful_metrics = set(stateful_metrics or [])


class History(Callback):
    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.epoch: list[int] = []
        self.history: dict[str, list[Any]] = {}

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)


class ProgbarLogger(Callback):
    verbose_level: int | None = None  # the loop's verbose (evaluate/predict give params 0)

    def __init__(self, count_mode: str = "samples", stateful_metrics: Any = None) -> None:
        super().__init__()
        self.use_steps = count_mode == "steps"
        self.stateful_metrics = set(stateful_metrics or [])

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.verbose = self.verbose_level or self.params["verbose"]
        self.epochs = self.params["epochs"]

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.seen = 0
        self.target = self.params["steps"] if self.use_steps else self.params["samples"]
        if self.verbose:
            if self.epochs > 1:
                print(f"Epoch {epoch + 1}/{self.epochs}")
            self.progbar = Progbar(
                target=self.target,
                verbose=self.verbose,
                stateful_metrics=self.stateful_metrics,
                unit_name="step" if self.use_steps else "sample",
            )

    def on_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self.log_values: list[tuple[str, Any]] = []

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        logs = logs or {}
        self.seen += 1 if self.use_steps else logs.get("size", 0)
        self.log_values.extend((k, logs[k]) for k in self.params["metrics"] if k in logs)
        if self.verbose and (self.target is None or self.seen < self.target):
            self.progbar.update(self.seen, self.log_values)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        # As TF 1.15: the last batch's values (not shown when it reached the target) stay in
        # log_values beside the epoch's, so the bar averages both in with the last batch's
        # weight.
        logs = logs or {}
        values = getattr(self, "log_values", [])
        values.extend((k, logs[k]) for k in self.params["metrics"] if k in logs)
        if self.verbose:
            self.progbar.update(self.seen, values)


def _monitor_op(mode: str, monitor: str) -> tuple[Callable[[Any, Any], Any], float]:
    if mode == "min" or (mode == "auto" and "acc" not in monitor):
        return np.less, np.inf
    return np.greater, -np.inf


class EarlyStopping(Callback):
    def __init__(
        self,
        monitor: str = "val_loss",
        min_delta: float = 0,
        patience: int = 0,
        verbose: int = 0,
        mode: str = "auto",
        baseline: Any = None,
        restore_best_weights: bool = False,
    ) -> None:
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.restore_best_weights = restore_best_weights
        self.monitor_op, _ = _monitor_op(mode, monitor)
        if self.monitor_op == np.less:
            self.min_delta *= -1
        self.wait = 0
        self.stopped_epoch = 0
        self.best_weights: Any = None

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.wait = 0
        self.stopped_epoch = 0
        self.best = (
            self.baseline
            if self.baseline is not None
            else (np.inf if self.monitor_op == np.less else -np.inf)
        )

    def get_monitor_value(self, logs: dict[str, Any] | None) -> Any:
        """The monitored value in logs; None (said on stdout) when logs lack it."""
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            print(
                f"Early stopping conditioned on metric `{self.monitor}` which is not available. "
                f"Available metrics are: {','.join(list(logs.keys()))}"
            )
        return value

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        current = self.get_monitor_value(logs)
        if current is None:
            return
        if self.monitor_op(current - self.min_delta, self.best):
            self.best = current
            self.wait = 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = epoch
                self.model.stop_training = True
                if self.restore_best_weights and self.best_weights is not None:
                    if self.verbose > 0:
                        print("Restoring model weights from the end of the best epoch.")
                    self.model.set_weights(self.best_weights)

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1:05d}: early stopping")


class ModelCheckpoint(Callback):
    """Saves the model (or its weights) every epoch, every `save_freq` samples, or only when
    the monitored value improves, as TF 1.15's: `period` and `load_weights_on_restart` are
    deprecated arguments (warned about), a subclassed model saves its weights only, and
    load_weights_on_restart loads the latest file matching the path before training."""

    def __init__(
        self,
        filepath: str,
        monitor: str = "val_loss",
        verbose: int = 0,
        save_best_only: bool = False,
        save_weights_only: bool = False,
        mode: str = "auto",
        save_freq: Any = "epoch",
        **kwargs: Any,
    ) -> None:
        super().__init__()
        self.monitor = monitor
        self.verbose = verbose
        self.filepath = filepath
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        self.epochs_since_last_save = 0
        self._samples_seen_since_last_saving = 0
        self._current_epoch = 0
        self.load_weights_on_restart = kwargs.get("load_weights_on_restart", False)
        if "load_weights_on_restart" in kwargs:
            _warn(
                "`load_weights_on_restart` argument is deprecated. Please use "
                "`model.load_weights()` for loading weights before the start of `model.fit()`."
            )
        self.period = kwargs.get("period", 1)
        if "period" in kwargs:
            _warn(
                "`period` argument is deprecated. Please use `save_freq` to specify the "
                "frequency in number of samples seen."
            )
        if mode not in ("auto", "min", "max"):
            _warn(f"ModelCheckpoint mode {mode} is unknown, fallback to auto mode.")
            mode = "auto"
        if mode == "auto" and monitor.startswith("fmeasure"):
            mode = "max"
        self.monitor_op, self.best = _monitor_op(mode, monitor)
        if self.save_freq != "epoch" and not isinstance(self.save_freq, int):
            raise ValueError(f"Unrecognized save_freq: {self.save_freq}")

    def set_model(self, model: Any) -> None:
        self.model = model
        if (
            not self.save_weights_only
            and not model._is_graph_network
            and type(model).__name__ != "Sequential"
        ):
            self.save_weights_only = True

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        if not self.load_weights_on_restart:
            return
        path = _latest_matching(self.filepath)
        if path is not None and _checkpoint_exists(path):
            try:
                self.model.load_weights(path)
            except (OSError, ValueError) as e:
                raise ValueError(f"Error loading file from {path}. Reason: {e}") from None

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        logs = logs or {}
        if isinstance(self.save_freq, int):
            self._samples_seen_since_last_saving += logs.get("size", 1)
            if self._samples_seen_since_last_saving >= self.save_freq:
                self._save_model(self._current_epoch, logs)
                self._samples_seen_since_last_saving = 0

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._current_epoch = epoch

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self.epochs_since_last_save += 1
        if self.save_freq == "epoch":
            self._save_model(epoch, logs or {})

    def _save(self, filepath: str) -> None:
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True)

    def _save_model(self, epoch: int, logs: dict[str, Any]) -> None:
        if not isinstance(self.save_freq, int) and self.epochs_since_last_save < self.period:
            return
        self.epochs_since_last_save = 0
        filepath = self.filepath.format(epoch=epoch + 1, **logs)
        if not self.save_best_only:
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1:05d}: saving model to {filepath}")
            self._save(filepath)
            return
        current = logs.get(self.monitor)
        if current is None:
            _warn(f"Can save best model only with {self.monitor} available, skipping.")
        elif self.monitor_op(current, self.best):
            if self.verbose > 0:
                print(
                    f"\nEpoch {epoch + 1:05d}: {self.monitor} improved from {self.best:.5f} "
                    f"to {current:.5f}, saving model to {filepath}"
                )
            self.best = current
            self._save(filepath)
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1:05d}: {self.monitor} did not improve from {self.best:.5f}")


def _warn(message: str) -> None:
    logging.getLogger("tensorflow").warning(message)


def _checkpoint_exists(path: str) -> bool:
    """A file, or a TF checkpoint's prefix (its .index)."""
    return os.path.exists(path) or os.path.exists(path + ".index")


def _latest_matching(pattern: str) -> str | None:
    """The most recently modified file matching the path's pattern (placeholders match
    anything): the directory's latest TF checkpoint when it matches, else by modification
    time, ties broken by the largest path (TF 1.15's
    _get_most_recently_modified_file_matching_pattern)."""
    from tfcluster.training import checkpoint_management

    directory, base = os.path.dirname(pattern), os.path.basename(pattern)
    regex = "^" + re.sub(r"{.*}", r".*", base) + "$"
    latest = checkpoint_management.latest_checkpoint(directory)
    if latest is not None and re.match(regex, os.path.basename(latest)):
        return str(latest)
    newest_time, newest, ties, largest = 0.0, None, 0, None
    if os.path.exists(directory):
        for name in os.listdir(directory):
            if not re.match(regex, name):
                continue
            path = os.path.join(directory, name)
            mtime = os.path.getmtime(path)
            if largest is None or path > largest:
                largest = path
            if mtime > newest_time:
                newest_time, newest, ties = mtime, path, 1
            elif mtime == newest_time:
                ties += 1
    return newest if ties == 1 else largest


class LambdaCallback(Callback):
    def __init__(
        self,
        on_epoch_begin: Any = None,
        on_epoch_end: Any = None,
        on_batch_begin: Any = None,
        on_batch_end: Any = None,
        on_train_begin: Any = None,
        on_train_end: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        self.__dict__.update(kwargs)  # other hooks (on_predict_batch_end, ...), as TF's
        hooks = {
            "on_epoch_begin": on_epoch_begin,
            "on_epoch_end": on_epoch_end,
            "on_batch_begin": on_batch_begin,
            "on_batch_end": on_batch_end,
            "on_train_begin": on_train_begin,
            "on_train_end": on_train_end,
        }
        for name, hook in hooks.items():
            if hook is not None:
                setattr(self, name, hook)


class TerminateOnNaN(Callback):
    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class LearningRateScheduler(Callback):
    def __init__(self, schedule: Callable[..., Any], verbose: int = 0) -> None:
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        optimizer = self.model.optimizer
        try:
            lr = self.schedule(epoch, float(backend.get_value(optimizer.lr)))
        except TypeError:
            lr = self.schedule(epoch)
        backend.set_value(optimizer.lr, lr)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1:05d}: LearningRateScheduler reducing learning rate to {lr}.")

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        # As TF 1.15: the epoch's logs (History's too) carry the learning rate.
        if logs is not None:
            logs["lr"] = backend.get_value(self.model.optimizer.lr)


class CSVLogger(Callback):
    def __init__(self, filename: str, separator: str = ",", append: bool = False) -> None:
        super().__init__()
        self.sep = separator
        self.filename = filename
        self.append = append
        self.writer: Any = None
        self.keys: list[str] | None = None
        self.append_header = True
        self.file_flags = ""  # TF 1.15's: 'b' under Python 2

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        if self.append and os.path.exists(self.filename):
            # A header unless the file already has a first line (TF 1.15).
            with open(self.filename) as f:
                self.append_header = not bool(len(f.readline()))
        mode = "a" if self.append else "w"
        self.csv_file = open(self.filename, mode, newline="\n")  # noqa: SIM115

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs.keys())
        if self.writer is None:
            self.writer = csv.DictWriter(
                self.csv_file, fieldnames=["epoch", *self.keys], delimiter=self.sep
            )
            if self.append_header:
                self.writer.writeheader()
        self.writer.writerow({"epoch": epoch, **{k: logs.get(k, "NA") for k in self.keys}})
        self.csv_file.flush()

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        self.csv_file.close()
        self.writer = None
