"""tf.audio: 16-bit PCM WAV decoding and encoding, as TF 1.15's gen_audio_ops builds them."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op

DecodeWav = namedtuple("DecodeWav", ["audio", "sample_rate"])


def _decode_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    samples = int(attrs.get("desired_samples", -1))
    channels = int(attrs.get("desired_channels", -1))
    shape = TensorShape([samples if samples >= 0 else None, channels if channels >= 0 else None])
    return [(dtypes.float32, shape), (dtypes.int32, TensorShape([]))]


op_def_registry.register("DecodeWav", _decode_infer)
op_def_registry.register("EncodeWav", lambda inputs, attrs: [(dtypes.string, TensorShape([]))])
OP_TYPES = ("DecodeWav", "EncodeWav")


def decode_wav(
    contents: Any, desired_channels: int = -1, desired_samples: int = -1, name: Any = None
) -> DecodeWav:
    """audio float32 [samples, channels] in [-1, 1) and the sample rate (int32)."""
    with name_scope(name, "DecodeWav", [contents]) as scope:
        wav = convert_to_tensor(contents, dtype=dtypes.string, name="contents")
        attrs = {"desired_channels": int(desired_channels), "desired_samples": int(desired_samples)}
        op = make_op("DecodeWav", [wav], attrs, scope or "DecodeWav")
        return DecodeWav(op.outputs[0], op.outputs[1])


def encode_wav(audio: Any, sample_rate: Any, name: Any = None) -> Tensor:
    """A WAV file (16-bit PCM) of float32 audio [samples, channels] clamped to [-1, 1]."""
    with name_scope(name, "EncodeWav", [audio, sample_rate]) as scope:
        samples = convert_to_tensor(audio, dtype=dtypes.float32, name="audio")
        rate = convert_to_tensor(sample_rate, dtype=dtypes.int32, name="sample_rate")
        op = make_op("EncodeWav", [samples, rate], {}, scope or "EncodeWav")
        return op.outputs[0]


__all__ = ["decode_wav", "encode_wav"]
