"""Summary protos built by hand with a tensor (TensorBoard's plugins write their text, custom
scalar layouts and PR curves so): tf.Summary.Value takes tf.make_tensor_proto's TensorProto,
by keyword, CopyFrom or MergeFrom, inside tf.Event too, and tf.make_ndarray reads it back,
as in TF 1.15, where both are the same TensorProto class. Each case is `fn(tf) -> dict of
plain values`, run on TF 1.15 by record_summary_protos.py and on tfcluster by
tests/unit/test_summary_protos.py. Python 3.7 code."""

from __future__ import annotations

import numpy as np

try:  # run by the tests (tests/ on the path) or by the recorder (in its folder)
    from tf_reference.case_tools import error_class
except ImportError:
    from case_tools import error_class


def _hex(proto):
    return proto.SerializeToString().hex()


def summary_values_holding_tensors(tf):
    tensor = tf.make_tensor_proto(np.array([1.5, 2.0], np.float32))
    text = tf.make_tensor_proto(np.array([b"hello", b"tf"], dtype=object))
    meta = tf.SummaryMetadata()
    meta.plugin_data.plugin_name = "text"
    out = {}
    summary = tf.Summary(value=[tf.Summary.Value(tag="a", tensor=tensor)])
    out["keyword"] = _hex(summary)
    added = tf.Summary()
    added.value.add(tag="b", metadata=meta, tensor=text)
    out["added_with_metadata"] = _hex(added)
    copied = tf.Summary()
    copied.value.add(tag="c").tensor.CopyFrom(tensor)
    out["copied"] = _hex(copied)
    merged = tf.Summary()
    merged.value.add(tag="d").tensor.MergeFrom(text)
    out["merged"] = _hex(merged)
    event = tf.Event(step=3, summary=summary)
    out["event"] = _hex(event)
    out["read_back"] = tf.make_ndarray(
        tf.Summary.FromString(summary.SerializeToString()).value[0].tensor
    ).tolist()
    out["text_read_back"] = [
        bytes(b).decode() for b in tf.make_ndarray(added.value[0].tensor).tolist()
    ]
    out["same_class"] = isinstance(tf.Summary.Value().tensor, type(tensor))
    out["wrong_field_type"] = error_class(lambda: tf.Summary.Value(tag="e", tensor=3))
    return out


CASES = {"summary_values_holding_tensors": summary_values_holding_tensors}
