"""Behaviours public TF1 programs (WaveNet, pix2pix) showed apart on tfcluster. Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_misc_sweep.py and on tfcluster by
tests/unit/test_misc_sweep_behaviours.py. Python 3.7 code."""

from __future__ import annotations

import logging


class _Warnings(logging.Handler):
    """Collects the messages logged on TF's "tensorflow" logger."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def collections_export(tf):
    """Which collections export_meta_graph keeps and how (kind, values), and the warning TF
    logs for each one it leaves out (WaveNet's training script trips on such a collection at
    every checkpoint)."""
    tf.reset_default_graph()
    tf.Variable(1.0, name="v")
    items = {
        "dicts": [{"filter_bias": 1}],
        "strings": ["abc", b"de"],
        "ints": [3, 4],
        "floats": [2.5],
        "bools": [True, False],
        "int_then_string": [1, "filter_bias"],
        "float_then_int": [0.5, 2],
    }
    for key, values in items.items():
        for value in values:
            tf.add_to_collection(key, value)
    handler = _Warnings()
    logger = logging.getLogger("tensorflow")
    logger.addHandler(handler)
    try:
        meta = tf.train.export_meta_graph()
    finally:
        logger.removeHandler(handler)
    kept = {}
    for key in items:
        if key in meta.collection_def:
            col = meta.collection_def[key]
            kind = col.WhichOneof("kind")
            kept[key] = [
                kind,
                [v.decode() if isinstance(v, bytes) else v for v in getattr(col, kind).value],
            ]
    return {"kept": kept, "warnings": sorted(m for m in handler.messages if "serializing" in m)}


def variable_trainable_given_positionally(tf):
    """`tf.Variable(initial, "filter_bias")` (WaveNet's bias variables) passes the name as
    `trainable`: TF keeps that value, makes the variable trainable, and its VariableDef cannot
    be written, so a MetaGraph leaves out both variable collections."""
    tf.reset_default_graph()
    v = tf.Variable([0.0, 1.0], "filter_bias")
    tf.Variable(2.0, name="w")
    out = {
        "trainable": v.trainable,
        "name": v.name,
        "trainable_variables": [x.name for x in tf.trainable_variables()],
        "collections": sorted(tf.train.export_meta_graph().collection_def.keys()),
    }
    try:
        v.to_proto()
        out["to_proto"] = "ok"
    except Exception as e:
        out["to_proto"] = type(e).__name__
    return out


CASES = {
    "collections_export": collections_export,
    "variable_trainable_given_positionally": variable_trainable_given_positionally,
}
