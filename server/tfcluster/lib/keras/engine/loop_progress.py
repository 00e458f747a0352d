"""The progress bar of TF 1.15's evaluate and predict loops: a ProgbarLogger counting samples
(arrays) or steps (datasets, generators) whose epoch end shows the loop's results, as
training_arrays.model_iteration drives it in test and predict modes."""

from __future__ import annotations

from typing import Any

from tfcluster.lib.keras import callbacks as cbks


class LoopProgress:
    def __init__(
        self, verbose: int, count_mode: str, target: int | None, names: list[str], epochs: int = 1
    ):
        """`epochs`: the params' (a fit's validation loop shows "Epoch 1/<fit's epochs>")."""
        self._logger: cbks.ProgbarLogger | None = None
        if not verbose:
            return
        # TF's get_progbar: every name but the total loss is shown as is, not averaged.
        logger = cbks.ProgbarLogger(count_mode, stateful_metrics=names[1:])
        logger.verbose_level = verbose
        logger.set_params(
            {"verbose": verbose, "epochs": epochs, "steps": target, "samples": target,
             "metrics": list(names)}
        )  # fmt: skip
        logger.on_train_begin()
        logger.on_epoch_begin(0)
        self._logger = logger
        self._batch = 0

    def batch(self, size: int, logs: dict[str, Any] | None = None) -> None:
        if self._logger is None:
            return
        self._logger.on_batch_begin(self._batch)
        self._logger.on_batch_end(self._batch, {"batch": self._batch, "size": size, **(logs or {})})
        self._batch += 1

    def end(self, results: dict[str, Any] | None = None) -> None:
        if self._logger is not None:
            self._logger.on_epoch_end(0, dict(results or {}))
