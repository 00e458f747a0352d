"""Exporters of TF 1.15 (`tf.estimator.Exporter`, FinalExporter, LatestExporter,
BestExporter): what train_and_evaluate's evaluator does with each evaluated checkpoint.
Each writes SavedModels under <model_dir>/export/<name>/<timestamp>; Latest and Best keep
the `exports_to_keep` newest; Best exports only when `compare_fn` says the evaluation beats
the best so far, which it first reads back from the eval event files (so it survives a
restart)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from typing import Any

from tfcluster.lib.estimator.estimator import _fn_args
from tfcluster.lib.io import gfile
from tfcluster.lib.io.summary_iterator import summary_iterator
from tfcluster.lib.platform import tf_logging as logging


class Exporter:
    """A kind of model export: `export` is called after each evaluation."""

    @property
    def name(self) -> str:
        raise NotImplementedError

    def export(
        self,
        estimator: Any,
        export_path: str,
        checkpoint_path: str,
        eval_result: Any,
        is_the_final_export: bool,
    ) -> Any:
        raise NotImplementedError


class _SavedModelExporter(Exporter):
    def __init__(
        self,
        name: str,
        serving_input_receiver_fn: Callable[..., Any],
        assets_extra: Any = None,
        as_text: bool = False,
    ) -> None:
        self._name = name
        self._serving_input_receiver_fn = serving_input_receiver_fn
        self._assets_extra = assets_extra
        self._as_text = as_text

    @property
    def name(self) -> str:
        return self._name

    def export(
        self,
        estimator: Any,
        export_path: str,
        checkpoint_path: str,
        eval_result: Any,
        is_the_final_export: bool,
    ) -> Any:
        return estimator.export_saved_model(
            export_path,
            self._serving_input_receiver_fn,
            assets_extra=self._assets_extra,
            as_text=self._as_text,
            checkpoint_path=checkpoint_path,
        )


def _loss_smaller(best_eval_result: Any, current_eval_result: Any) -> bool:
    """True when the current evaluation's loss is below the best one's."""
    if not best_eval_result or "loss" not in best_eval_result:
        raise ValueError("best_eval_result cannot be empty or no loss is found in it.")
    if not current_eval_result or "loss" not in current_eval_result:
        raise ValueError("current_eval_result cannot be empty or no loss is found in it.")
    return bool(best_eval_result["loss"] > current_eval_result["loss"])


def _verify_compare_fn_args(compare_fn: Callable[..., Any]) -> None:
    args = _fn_args(compare_fn)
    if "best_eval_result" not in args:
        raise ValueError(f"compare_fn ({compare_fn}) must include best_eval_result argument.")
    if "current_eval_result" not in args:
        raise ValueError(f"compare_fn ({compare_fn}) must include current_eval_result argument.")
    extra = sorted(args - {"best_eval_result", "current_eval_result"})
    if extra:
        raise ValueError(f"compare_fn ({compare_fn}) has following not expected args: {extra}")


def _garbage_collect_exports(export_dir_base: str, exports_to_keep: int | None) -> None:
    """Deletes all but the `exports_to_keep` newest exports (10-digit timestamp folders)."""
    if exports_to_keep is None or not os.path.isdir(export_dir_base):
        return
    versions = sorted(int(f) for f in os.listdir(export_dir_base) if len(f) == 10 and f.isdigit())
    for version in versions[: max(0, len(versions) - exports_to_keep)]:
        path = os.path.join(export_dir_base, str(version))
        try:
            shutil.rmtree(path)
        except OSError as e:
            logging.warning("Can not delete %s recursively: %s", path, e)


class FinalExporter(Exporter):
    """Exports once, after the evaluation at the end of training."""

    def __init__(
        self,
        name: str,
        serving_input_receiver_fn: Callable[..., Any],
        assets_extra: Any = None,
        as_text: bool = False,
    ) -> None:
        self._exporter = _SavedModelExporter(name, serving_input_receiver_fn, assets_extra, as_text)

    @property
    def name(self) -> str:
        return self._exporter.name

    def export(
        self,
        estimator: Any,
        export_path: str,
        checkpoint_path: str,
        eval_result: Any,
        is_the_final_export: bool,
    ) -> Any:
        if not is_the_final_export:
            return None
        logging.info("Performing the final export in the end of training.")
        return self._exporter.export(
            estimator, export_path, checkpoint_path, eval_result, is_the_final_export
        )


class LatestExporter(Exporter):
    """Exports after every evaluation, keeping the `exports_to_keep` newest exports."""

    def __init__(
        self,
        name: str,
        serving_input_receiver_fn: Callable[..., Any],
        assets_extra: Any = None,
        as_text: bool = False,
        exports_to_keep: int | None = 5,
    ) -> None:
        self._exporter = _SavedModelExporter(name, serving_input_receiver_fn, assets_extra, as_text)
        if exports_to_keep is not None and exports_to_keep <= 0:
            raise ValueError("`exports_to_keep`, if provided, must be positive number")
        self._exports_to_keep = exports_to_keep

    @property
    def name(self) -> str:
        return self._exporter.name

    def export(
        self,
        estimator: Any,
        export_path: str,
        checkpoint_path: str,
        eval_result: Any,
        is_the_final_export: bool,
    ) -> Any:
        result = self._exporter.export(
            estimator, export_path, checkpoint_path, eval_result, is_the_final_export
        )
        _garbage_collect_exports(export_path, self._exports_to_keep)
        return result


class BestExporter(Exporter):
    """Exports when `compare_fn(best_eval_result, current_eval_result)` says the new
    evaluation is better (default: smaller loss)."""

    def __init__(
        self,
        name: str = "best_exporter",
        serving_input_receiver_fn: Callable[..., Any] | None = None,
        event_file_pattern: str | None = "eval/*.tfevents.*",
        compare_fn: Callable[..., bool] | None = _loss_smaller,
        assets_extra: Any = None,
        as_text: bool = False,
        exports_to_keep: int | None = 5,
    ) -> None:
        if compare_fn is None:
            raise ValueError("`compare_fn` must not be None.")
        _verify_compare_fn_args(compare_fn)
        self._compare_fn = compare_fn
        self._exporter = _SavedModelExporter(
            name,
            serving_input_receiver_fn,  # type: ignore[arg-type]  # TF checks it on export
            assets_extra,
            as_text,
        )
        self._event_file_pattern = event_file_pattern
        self._model_dir: str | None = None
        self._best_eval_result: dict[str, Any] | None = None
        if exports_to_keep is not None and exports_to_keep <= 0:
            raise ValueError(
                f"`exports_to_keep`, if provided, must be a positive number. Got {exports_to_keep}"
            )
        self._exports_to_keep = exports_to_keep

    @property
    def name(self) -> str:
        return self._exporter.name

    def export(
        self,
        estimator: Any,
        export_path: str,
        checkpoint_path: str,
        eval_result: Any,
        is_the_final_export: bool,
    ) -> Any:
        if self._model_dir != estimator.model_dir and self._event_file_pattern:
            logging.info("Loading best metric from event files.")
            self._model_dir = estimator.model_dir
            self._best_eval_result = self._get_best_eval_result(
                os.path.join(self._model_dir, self._event_file_pattern)
            )
        if self._best_eval_result is None or self._compare_fn(
            best_eval_result=self._best_eval_result, current_eval_result=eval_result
        ):
            logging.info("Performing best model export.")
            self._best_eval_result = eval_result
            result = self._exporter.export(
                estimator, export_path, checkpoint_path, eval_result, is_the_final_export
            )
            _garbage_collect_exports(export_path, self._exports_to_keep)
            return result
        return None

    def _get_best_eval_result(self, pattern: str) -> dict[str, Any] | None:
        """The best evaluation among the simple values of the event files' summaries."""
        best: dict[str, Any] | None = None
        for path in gfile.glob(pattern):
            for event in summary_iterator(path):
                if not event.HasField("summary"):
                    continue
                result = {
                    v.tag: v.simple_value for v in event.summary.value if v.HasField("simple_value")
                }
                if result and (
                    best is None
                    or self._compare_fn(best_eval_result=best, current_eval_result=result)
                ):
                    best = result
        return best
