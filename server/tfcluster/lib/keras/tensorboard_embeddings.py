"""What TF 1.15's Keras TensorBoard callback (callbacks_v1) writes beside its scalars: images
of the weights (write_images) and the embedding projector's data (embeddings_freq with
embeddings_data): one variable per embedded layer, filled batch by batch with the layer's
outputs for the given inputs, saved to `keras_embedding.ckpt-<epoch>` in the log directory,
and the projector's `projector_config.pbtxt` naming those variables."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from google.protobuf import text_format

from tfcluster.framework import dtypes
from tfcluster.lib.keras import backend
from tfcluster.ops import array_ops, state_ops, variables
from tfcluster.protos import projector_config_pb2

PROJECTOR_FILENAME = "projector_config.pbtxt"


def weight_image(weight: Any) -> Any:
    """A weight as a batch of one-channel images, as TF 1.15 draws it: a 2-D kernel wide
    side across, a 3-D one (channels last) as one image per input channel, a bias as a
    column; None for higher ranks (3-D convolutions), which TF skips."""
    image = array_ops.squeeze(weight)
    shape = backend.int_shape(image)
    if shape is None:
        return None
    if len(shape) == 2:
        if shape[0] > shape[1]:
            image = array_ops.transpose(image)
            shape = (shape[1], shape[0])
        return array_ops.reshape(image, [1, shape[0], shape[1], 1])
    if len(shape) == 3:
        if backend.image_data_format() == "channels_last":
            image = array_ops.transpose(image, perm=[2, 0, 1])
            shape = (shape[2], shape[0], shape[1])
        return array_ops.reshape(image, [shape[0], shape[1], shape[2], 1])
    if len(shape) == 1:
        return array_ops.reshape(image, [1, shape[0], 1, 1])
    return None


def _standardized(data: Any, input_names: list[str]) -> list[np.ndarray]:
    """The embeddings data as one array per model input (a dict by input name, a list, or
    one array), as Keras's standardize_input_data gives it."""
    if isinstance(data, dict):
        return [np.asarray(data[name]) for name in input_names]
    if isinstance(data, (list, tuple)):
        return [np.asarray(a) for a in data]
    return [np.asarray(data)]


class EmbeddingsWriter:
    """The callback's embeddings: nothing unless embeddings_freq is set; then, without
    embeddings_data, TF's ValueError at the first epoch's end."""

    def __init__(self, freq: int, layer_names: Any, metadata: Any, data: Any) -> None:
        self.freq = freq
        self.layer_names = layer_names
        self.metadata = metadata
        self.data = data
        self._assigns: list[Any] = []
        self._saver: Any = None

    def set_model(self, model: Any, writer: Any) -> None:
        if not self.freq or self.data is None:
            return
        from tfcluster.training.saver import Saver

        self.model = model
        self.data = _standardized(self.data, list(model.input_names))
        names = self.layer_names or [
            layer.name for layer in model.layers if type(layer).__name__ == "Embedding"
        ]
        self.batch_id = batch_id = array_ops.placeholder(dtypes.int32)
        self.step = step = array_ops.placeholder(dtypes.int32)
        embeddings: dict[str, Any] = {}
        for layer in model.layers:
            if layer.name not in names:
                continue
            output = model.get_layer(layer.name).output
            size = int(np.prod(output.shape[1:]))
            rows = array_ops.reshape(output, (step, size))
            embedding: Any = variables.Variable(
                array_ops.zeros((self.data[0].shape[0], size)), name=layer.name + "_embedding"
            )
            embeddings[layer.name] = embedding
            self._assigns.append(state_ops.assign(embedding[batch_id : batch_id + step], rows))
        self._saver = Saver(list(embeddings.values()))
        metadata = self.metadata
        if isinstance(metadata, str):
            metadata = {name: metadata for name in embeddings}
        config = projector_config_pb2.ProjectorConfig()
        for name, embedding in embeddings.items():
            info = config.embeddings.add()
            info.tensor_name = embedding.name
            if metadata is not None and name in metadata:
                info.metadata_path = metadata[name]
        logdir = writer.get_logdir()
        with open(os.path.join(logdir, PROJECTOR_FILENAME), "w") as f:
            f.write(text_format.MessageToString(config))

    def on_epoch_end(self, epoch: int, log_dir: str, batch_size: int) -> None:
        if self.freq and self.data is None:
            raise ValueError("To visualize embeddings, embeddings_data must be provided.")
        if not self.freq or epoch % self.freq:
            return
        session = backend.get_session()
        inputs = self.model.input if isinstance(self.model.input, list) else [self.model.input]
        count = self.data[0].shape[0]
        for start in range(0, count, batch_size):
            step = min(batch_size, count - start)
            feed: dict[Any, Any] = {t: a[start : start + step] for t, a in zip(inputs, self.data)}
            feed.update({self.batch_id: start, self.step: step})
            phase = backend.learning_phase()
            if not isinstance(phase, int):
                feed[phase] = False
            session.run(self._assigns, feed_dict=feed)
            # TF 1.15 saves after every batch, at the epoch's number.
            self._saver.save(session, os.path.join(log_dir, "keras_embedding.ckpt"), epoch)
