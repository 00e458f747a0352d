"""Summary ops (tf.summary.scalar / histogram / text / merge / merge_all).

Each op outputs a serialized `Summary` protocol buffer (a string scalar) that a FileWriter
writes to a TensorBoard event file. Op types and names follow TF1: ScalarSummary,
HistogramSummary, TensorSummaryV2 (text), MergeSummary; the op is named after the summary's
scope and its tag is that scope ('loss', 'train/loss', 'family/family/loss').
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator, Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import (
    GraphKeys,
    Tensor,
    add_to_collection,
    convert_to_tensor,
    get_collection,
    name_scope,
)
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import NUMERIC, Outputs, check_dtype, make_op
from tfcluster.protos import summary_pb2, tensor_pb2

_STRING_SCALAR = [(dtypes.string, TensorShape([]))]


def _histogram_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    if inputs[0].shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {inputs[0].shape.ndims} (tag)")
    return list(_STRING_SCALAR)


def _merge_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    for t in inputs:
        if t.dtype.base_dtype != dtypes.string:
            raise TypeError(f"MergeSummary inputs must be strings, got {t.dtype.name} ({t.name})")
    return list(_STRING_SCALAR)


# As TF (ScalarShape): tags and values are compared when the summary runs, not here.
op_def_registry.register("ScalarSummary", lambda inputs, attrs: list(_STRING_SCALAR))
op_def_registry.register("HistogramSummary", _histogram_infer)
op_def_registry.register("TensorSummaryV2", lambda inputs, attrs: list(_STRING_SCALAR))
op_def_registry.register("MergeSummary", _merge_infer)
op_def_registry.register("ImageSummary", _histogram_infer)
op_def_registry.register("AudioSummaryV2", _histogram_infer)
# The first versions (graphs TF wrote before AudioSummaryV2 / TensorSummaryV2): the sample
# rate an attr; the tensor summary tagged with its node's name.
op_def_registry.register("AudioSummary", _histogram_infer)
op_def_registry.register("TensorSummary", lambda inputs, attrs: list(_STRING_SCALAR))
# The op types this module adds (gradients/summary_grad.py marks them not differentiable).
OP_TYPES = (
    "ScalarSummary",
    "HistogramSummary",
    "TensorSummaryV2",
    "TensorSummary",
    "MergeSummary",
    "ImageSummary",
    "AudioSummaryV2",
    "AudioSummary",
)

_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


def clean_tag(name: str | None) -> str | None:
    """Replaces characters TensorBoard does not allow in tags with '_' (and leading '/'),
    saying so at INFO as TF does."""
    if name is None:
        return None
    new = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
    if new != name:
        logging.getLogger("tensorflow").info(
            "Summary name %s is illegal; using %s instead.", name, new
        )
    return new


@contextlib.contextmanager
def summary_scope(
    name: str, family: str | None = None, default_name: str | None = None, values: Any = None
) -> Iterator[tuple[str, str]]:
    """(tag, scope) for a summary: the tag is the (unique) scope, prefixed by the family."""
    name = clean_tag(name) or ""
    family = clean_tag(family)
    base = name if family is None else f"{family}/{name}"
    with name_scope(base, default_name, values) as scope:
        tag = scope.rstrip("/") if family is None else f"{family}/{scope.rstrip('/')}"
        yield tag, scope


def _collect(op: Tensor, collections: Sequence[str] | None) -> None:
    for key in collections if collections is not None else [GraphKeys.SUMMARIES]:
        add_to_collection(key, op)


def scalar(
    name: str, tensor: Any, collections: Sequence[str] | None = None, family: str | None = None
) -> Tensor:
    """A summary of one real number. As in TF the tensor is passed as it is: one that is not
    a scalar fails when the summary runs (InvalidArgumentError), adding no op here (extra ops
    would shift the op seeds of every random op made after it)."""
    # As TF's op wrapper: the inputs converted in the op's scope, in the op's order.
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        tags = convert_to_tensor(tag, dtype=dtypes.string, name="tags")
        values = convert_to_tensor(tensor, name="values")
        check_dtype(values, [d for d in NUMERIC if not d.is_complex], "ScalarSummary", "values")
        out = make_op(
            "ScalarSummary", [tags, values], {"T": values.dtype.base_dtype}, name=scope
        ).outputs[0]
    _collect(out, collections)
    return out


def histogram(
    name: str, values: Any, collections: Sequence[str] | None = None, family: str | None = None
) -> Tensor:
    """A histogram of the values (TensorFlow's exponential buckets)."""
    with summary_scope(name, family, values=[values]) as (tag, scope):
        tag_t = convert_to_tensor(tag, dtype=dtypes.string, name="tag")
        # T defaults to float32: numpy arrays and Python numbers become float32.
        t = convert_to_tensor(values, name="values", preferred_dtype=dtypes.float32)
        check_dtype(t, [d for d in NUMERIC if not d.is_complex], "HistogramSummary", "values")
        out = make_op(
            "HistogramSummary", [tag_t, t], {"T": t.dtype.base_dtype}, name=scope
        ).outputs[0]
    _collect(out, collections)
    return out


def text(name: str, tensor: Any, collections: Sequence[str] | None = None) -> Tensor:
    """A summary of string tensors, shown by TensorBoard's text plugin."""
    t = convert_to_tensor(tensor)
    if t.dtype.base_dtype != dtypes.string:
        raise ValueError(f"Expected tensor {t.name} to have dtype string, got {t.dtype.name}")
    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text")
    )
    return tensor_summary(name, t, summary_metadata=metadata, collections=collections)


def tensor_summary(
    name: str,
    tensor: Any,
    summary_description: str | None = None,
    collections: Sequence[str] | None = None,
    summary_metadata: Any = None,
    family: str | None = None,
    display_name: str | None = None,
) -> Tensor:
    """A summary holding the whole tensor (TensorSummaryV2), with its metadata."""
    metadata = summary_pb2.SummaryMetadata()
    if summary_metadata is not None:
        metadata.ParseFromString(summary_metadata.SerializeToString())
    if summary_description is not None:
        metadata.summary_description = summary_description
    if display_name is not None:
        metadata.display_name = display_name
    t = convert_to_tensor(tensor)
    with summary_scope(name, family, values=[t]) as (tag, scope):
        tag_t = convert_to_tensor(tag, dtype=dtypes.string, name="tag")
        meta_t = convert_to_tensor(
            metadata.SerializeToString(), dtype=dtypes.string, name="serialized_summary_metadata"
        )
        out = make_op(
            "TensorSummaryV2", [tag_t, t, meta_t], {"T": t.dtype.base_dtype}, name=scope
        ).outputs[0]
    _collect(out, collections)
    return out


_IMAGE_DTYPES = (dtypes.uint8, dtypes.float16, dtypes.float32, dtypes.float64)


def _default_bad_color() -> tensor_pb2.TensorProto:
    """ImageSummary's bad_color as TF writes it: its OpDef's default, opaque red in int_val (not
    the tensor_content a constant's [4] uint8 would get)."""
    proto = tensor_pb2.TensorProto(dtype=dtypes.uint8.as_datatype_enum, int_val=[255, 0, 0, 255])
    proto.tensor_shape.dim.add(size=4)
    return proto


def image(
    name: str,
    tensor: Any,
    max_outputs: int = 3,
    collections: Sequence[str] | None = None,
    family: str | None = None,
) -> Tensor:
    """Images (a [batch, height, width, 1|3|4] tensor) as PNGs TensorBoard shows: floats are
    scaled into 0..255 per image, as TF does."""
    if max_outputs < 1:
        raise ValueError(f"max_outputs must be >= 1, got {max_outputs}")
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        tag_t = convert_to_tensor(tag, dtype=dtypes.string, name="tag")
        # T defaults to float32: a numpy uint8 array is converted to float32 (and so scaled
        # into 0..255 like any float image), as TF's op wrapper converts it.
        t = convert_to_tensor(tensor, name="tensor", preferred_dtype=dtypes.float32)
        check_dtype(t, _IMAGE_DTYPES, "ImageSummary", "tensor")
        attrs = {
            "max_images": int(max_outputs),
            "T": t.dtype.base_dtype,
            "bad_color": _default_bad_color(),
        }
        out = make_op("ImageSummary", [tag_t, t], attrs, name=scope).outputs[0]
    _collect(out, collections)
    return out


def _float32_input(value: Any, name: str, op: str) -> Tensor:
    """An input of fixed type float32: Python and numpy values made float32, a tensor of
    another type refused as TF's op wrapper refuses it."""
    if isinstance(value, Tensor):
        check_dtype(value, (dtypes.float32,), op, name)
        return value
    return convert_to_tensor(value, dtype=dtypes.float32, name=name)


def audio(
    name: str,
    tensor: Any,
    sample_rate: Any,
    max_outputs: int = 3,
    collections: Sequence[str] | None = None,
    family: str | None = None,
) -> Tensor:
    """Audio clips ([batch, frames, channels] or [batch, frames], floats in [-1, 1]) as
    16-bit WAV files TensorBoard plays."""
    if max_outputs < 1:
        raise ValueError(f"max_outputs must be >= 1, got {max_outputs}")
    with summary_scope(name, family=family, values=[tensor]) as (tag, scope):
        rate = convert_to_tensor(sample_rate, dtype=dtypes.float32, name="sample_rate")
        tag_t = convert_to_tensor(tag, dtype=dtypes.string, name="tag")
        t = _float32_input(tensor, "tensor", "AudioSummaryV2")
        out = make_op(
            "AudioSummaryV2", [tag_t, t, rate], {"max_outputs": int(max_outputs)}, name=scope
        ).outputs[0]
    _collect(out, collections)
    return out


def merge(
    inputs: Sequence[Any], collections: Sequence[str] | None = None, name: str | None = None
) -> Tensor:
    """One Summary with the values of all `inputs`; a tag seen twice is an error at run time."""
    ts = [convert_to_tensor(x) for x in inputs]
    name = clean_tag(name)
    # TF's names: 'Merge/MergeSummary', or '<name>/<name>'.
    with name_scope(name, "Merge", ts):
        out = make_op("MergeSummary", ts, {"N": len(ts)}, name=name or "MergeSummary").outputs[0]
    if collections:
        _collect(out, collections)
    return out


def merge_all(
    key: str = GraphKeys.SUMMARIES, scope: str | None = None, name: str | None = None
) -> Tensor | None:
    """Merges every summary in the collection; None when there is none."""
    ops = get_collection(key, scope=scope)
    if not ops:
        return None
    return merge(ops, name=name)


__all__ = [
    "audio",
    "histogram",
    "image",
    "merge",
    "merge_all",
    "scalar",
    "tensor_summary",
    "text",
]
