"""More tf.keras callbacks (TF 1.15): ReduceLROnPlateau, TensorBoard (event files TensorBoard
and tf.train.summary_iterator read: one scalar per metric per epoch, or per batch/samples with
update_freq, the graph, weight histograms) and RemoteMonitor (POSTs epoch logs with
`requests`, which must be installed)."""

from __future__ import annotations

import json
import logging
from typing import Any

import numpy as np

from tfcluster.client import trace_profiler
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.lib.keras import backend, tensorboard_embeddings
from tfcluster.lib.keras.callbacks import Callback


class ReduceLROnPlateau(Callback):
    def __init__(
        self,
        monitor: str = "val_loss",
        factor: float = 0.1,
        patience: int = 10,
        verbose: int = 0,
        mode: str = "auto",
        min_delta: float = 1e-4,
        cooldown: int = 0,
        min_lr: float = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        self.monitor = monitor
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        if "epsilon" in kwargs:
            min_delta = kwargs.pop("epsilon")
            logging.warning(
                "`epsilon` argument is deprecated and will be removed, use `min_delta` instead."
            )
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0
        self.best = 0.0
        self.mode = mode
        self._reset()

    def _reset(self) -> None:
        if self.mode not in ("auto", "min", "max"):
            logging.warning(
                "Learning Rate Plateau Reducing mode %s is unknown, fallback to auto mode.",
                self.mode,
            )
            self.mode = "auto"
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._reset()

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = logs if logs is not None else {}
        logs["lr"] = backend.get_value(self.model.optimizer.lr)
        current = logs.get(self.monitor)
        if current is None:
            logging.warning(
                "Reduce LR on plateau conditioned on metric `%s` which is not available. "
                "Available metrics are: %s",
                self.monitor,
                ",".join(logs.keys()),
            )
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = float(backend.get_value(self.model.optimizer.lr))
                if old_lr > self.min_lr:
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    backend.set_value(self.model.optimizer.lr, new_lr)
                    if self.verbose > 0:
                        print(
                            f"\nEpoch {epoch + 1:05d}: ReduceLROnPlateau reducing learning "
                            f"rate to {new_lr}."
                        )
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


class TensorBoard(Callback):
    """TF 1.15's graph-mode TensorBoard callback (callbacks_v1)."""

    def __init__(
        self,
        log_dir: str = "./logs",
        histogram_freq: int = 0,
        batch_size: int = 32,
        write_graph: bool = True,
        write_grads: bool = False,
        write_images: bool = False,
        embeddings_freq: int = 0,
        embeddings_layer_names: Any = None,
        embeddings_metadata: Any = None,
        embeddings_data: Any = None,
        update_freq: Any = "epoch",
        profile_batch: int = 2,
    ) -> None:
        super().__init__()
        self.log_dir = log_dir
        self.histogram_freq = histogram_freq
        self.batch_size = batch_size
        self.write_graph = write_graph
        # Both act with histogram_freq only, as in TF 1.15 (silently ignored without it).
        self.write_grads = write_grads
        self.write_images = write_images
        self.embeddings_freq = embeddings_freq
        self.embeddings_layer_names = embeddings_layer_names
        self.embeddings_metadata = embeddings_metadata
        self.embeddings_data = embeddings_data
        self.embeddings = tensorboard_embeddings.EmbeddingsWriter(
            embeddings_freq, embeddings_layer_names, embeddings_metadata, embeddings_data
        )
        self.update_freq = 1 if update_freq == "batch" else update_freq
        # The batch traced by the profiler (saved under log_dir/plugins/profile); 0: none.
        self.profile_batch = profile_batch
        self._is_profiling = False
        self.writer: Any = None
        self.merged: Any = None
        self._samples_seen = 0
        self._samples_seen_at_last_write = 0
        self._total_batches_seen = 0
        self._total_val_batches_seen = 0

    def set_model(self, model: Any) -> None:
        from tfcluster.ops import summary_ops
        from tfcluster.training.summary_io import FileWriter

        self.model = model
        self.sess = backend.get_session()
        if self.write_graph:
            self.writer = FileWriter(self.log_dir, self.sess.graph)
        else:
            self.writer = FileWriter(self.log_dir)
        if self.histogram_freq and self.merged is None:
            for layer in model.layers:
                self._make_layer_summaries(layer)
            # TF 1.15 merges every summary of the graph, a program's own ones too.
            self.merged = summary_ops.merge_all()
        self.embeddings.set_model(model, self.writer)

    def _make_layer_summaries(self, layer: Any) -> None:
        """A layer's histograms (weights, gradients, outputs) and weight images, in TF's order."""
        from tfcluster.ops import summary_ops

        for weight in layer.weights:
            name = weight.name.replace(":", "_")
            summary_ops.histogram(name, weight)
            if self.write_images:
                image = tensorboard_embeddings.weight_image(weight)
                if image is not None:
                    summary_ops.image(name, image)
        if self.write_grads:
            for weight in layer.trainable_weights:
                name = weight.name.replace(":", "_")
                grads = self.model.optimizer.get_gradients(self.model.total_loss, weight)
                grads = [g.values if isinstance(g, IndexedSlices) else g for g in grads]
                summary_ops.histogram(f"{name}_grad", grads)
        outputs = getattr(layer, "_inbound_nodes", None) and layer.output
        if isinstance(outputs, list):
            for i, output in enumerate(outputs):
                summary_ops.histogram(f"{layer.name}_out_{i}", output)
        elif outputs is not None:
            summary_ops.histogram(f"{layer.name}_out", outputs)

    def _write_custom_summaries(self, step: int, logs: dict[str, Any]) -> None:
        from tfcluster.training.summary_io import Summary

        for name, value in logs.items():
            if isinstance(value, (np.ndarray, np.generic)):
                value = value.item()
            summary = Summary()
            entry = summary.value.add()
            entry.simple_value = float(value)
            entry.tag = name
            self.writer.add_summary(summary, step)
        self.writer.flush()

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        if self.profile_batch == 1:
            trace_profiler.start()
            self._is_profiling = True

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Batch scalars (`batch_loss`, ...) every update_freq samples, at the count of batches
        seen before this one; the profile of batch profile_batch, as TF 1.15 takes it (the
        profiler starts after the batch before it and is saved after it)."""
        logs = logs or {}
        self._samples_seen += int(logs.get("size", 1))
        since = self._samples_seen - self._samples_seen_at_last_write
        if self.update_freq != "epoch" and since >= self.update_freq:
            batch_logs = {
                f"batch_{k}": v for k, v in logs.items() if k not in ("batch", "size", "num_steps")
            }
            self._write_custom_summaries(self._total_batches_seen, batch_logs)
            self._samples_seen_at_last_write = self._samples_seen
        self._total_batches_seen += 1
        if self._is_profiling:
            trace_profiler.save(self.log_dir, trace_profiler.stop())
            self._is_profiling = False
        elif self._total_batches_seen == self.profile_batch - 1:
            trace_profiler.start()
            self._is_profiling = True

    def _write_histograms(self) -> None:
        """The merged summaries over the validation data, one per validation batch, at the
        count of validation batches written before it: TF 1.15 fetches them with the model's
        test function during validation (fit's batch size; none without validation data)."""
        data = getattr(self, "validation_data", None)
        if not data:
            return
        model = self.model
        count = len(model._feed_inputs())
        xs, ys = list(data[:count]), list(data[count:])
        weights = model._standardize_weights(ys, None, None)
        size = len(xs[0]) if xs else len(ys[0])
        batch_size = (getattr(self, "params", None) or {}).get("batch_size") or 32
        for start in range(0, size, batch_size):
            index = np.arange(start, min(start + batch_size, size))
            feed = model._feed(xs, ys, index, False, weights)
            summary = self.sess.run(self.merged, feed_dict=feed)
            self.writer.add_summary(summary, self._total_val_batches_seen)
            self._total_val_batches_seen += 1

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = logs or {}
        if self.merged is not None and self.histogram_freq and epoch % self.histogram_freq == 0:
            self._write_histograms()
        step = epoch if self.update_freq == "epoch" else self._samples_seen
        epoch_logs = {
            f"epoch_{k}": v for k, v in logs.items() if k not in ("batch", "size", "num_steps")
        }
        self._write_custom_summaries(step, epoch_logs)
        self.embeddings.on_epoch_end(epoch, self.log_dir, self.batch_size)

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self._is_profiling:
            trace_profiler.save(self.log_dir, trace_profiler.stop())
            self._is_profiling = False
        if self.writer is not None:
            self.writer.close()


class RemoteMonitor(Callback):
    def __init__(
        self,
        root: str = "http://localhost:9000",
        path: str = "/publish/epoch/end/",
        field: str = "data",
        headers: Any = None,
        send_as_json: bool = False,
    ) -> None:
        super().__init__()
        self.root = root
        self.path = path
        self.field = field
        self.headers = headers
        self.send_as_json = send_as_json

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        try:
            import requests  # type: ignore[import-untyped]
        except ImportError:
            raise ImportError("RemoteMonitor requires the `requests` library.") from None
        send: dict[str, Any] = {"epoch": epoch}
        for k, v in (logs or {}).items():
            send[k] = v.item() if isinstance(v, (np.ndarray, np.generic)) else v
        url = self.root + self.path
        try:
            if self.send_as_json:
                requests.post(url, json=send, headers=self.headers)
            else:
                requests.post(url, {self.field: json.dumps(send)}, headers=self.headers)
        except requests.exceptions.RequestException:
            logging.warning("Warning: could not reach RemoteMonitor root server at %s", self.root)
