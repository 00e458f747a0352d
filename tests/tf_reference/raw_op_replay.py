"""Runs one collected raw op example (raw_op_examples.json) as `tf.raw_ops.<Op>(**kwargs)` with
whichever `tf` it is given: TensorFlow 1.15 in record_raw_op_examples.py, tfcluster in
tests/unit/test_raw_ops_reference.py. Only numpy is imported here; it runs on Python 3.7."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

OPAQUE = ("resource", "variant")
# Files of this checkout that an example reads (vocabularies, checkpoints) are stored under this
# prefix, so the examples replay in any clone, not only where they were collected.
REPO_MARK = "<repo>/"
REPO_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def repo_relative(text: str) -> str:
    root = REPO_DIR + os.sep
    return REPO_MARK + text[len(root) :] if text.startswith(root) else text


def in_this_checkout(text: str) -> str:
    return os.path.join(REPO_DIR, text[len(REPO_MARK) :]) if text.startswith(REPO_MARK) else text


def decode_input(d: dict[str, Any]) -> np.ndarray:
    if "bytes" in d:
        flat = [in_this_checkout(s).encode("latin-1") for s in d["bytes"]]
        return np.array(flat, dtype=object).reshape(d["shape"])
    if "complex" in d:
        pairs = np.array(d["complex"], dtype=np.float64).reshape(-1, 2)
        return (pairs[:, 0] + 1j * pairs[:, 1]).astype(d["dtype"]).reshape(d["shape"])
    return np.array(d["values"], dtype=d["dtype"]).reshape(d["shape"])


def attr_value(tf: Any, value: Any) -> Any:
    if isinstance(value, dict) and "dtype" in value:
        return tf.as_dtype(value["dtype"])
    if isinstance(value, dict) and "shape" in value:
        return tf.TensorShape(value["shape"])
    if isinstance(value, list):
        return [attr_value(tf, v) for v in value]
    return value


def build(tf: Any, example: dict[str, Any]) -> Any:
    """The raw op's output structure, its inputs made constants named in_0, in_1, ..."""
    consts = [tf.constant(decode_input(d), name=f"in_{i}") for i, d in enumerate(example["inputs"])]
    kwargs: dict[str, Any] = {}
    for param, where in example["args"].items():
        kwargs[param] = (
            consts[where["one"]] if "one" in where else [consts[i] for i in where["list"]]
        )
    for param, value in example["attrs"].items():
        kwargs[param] = attr_value(tf, value)
    return getattr(tf.raw_ops, example["op"])(name="raw", **kwargs)


def fetches(structure: Any) -> dict[str, Any]:
    """key -> Tensor or Operation: "op" for an op without outputs, else "0", "1.0", ..."""
    if hasattr(structure, "type") and hasattr(structure, "node_def"):
        return {"op": structure}
    if not isinstance(structure, (list, tuple)):
        return {"0": structure}
    out: dict[str, Any] = {}
    for i, item in enumerate(structure):
        if isinstance(item, (list, tuple)):
            for j, t in enumerate(item):
                out[f"{i}.{j}"] = t
        else:
            out[str(i)] = item
    return out


def run_example(tf: Any, example: dict[str, Any]) -> dict[str, Any]:
    """{"out:<key>": value, "name:<key>": tensor name} or {"error": exc, "stage": ...}."""
    graph = tf.Graph()
    with graph.as_default():
        try:
            targets = fetches(build(tf, example))
        except Exception as e:
            return {"error": e, "stage": "build"}
        result: dict[str, Any] = {}
        run: dict[str, Any] = {}
        for key, t in targets.items():
            result["name:" + key] = t.name
            # Handles (resources, variants, refs) are process-local: run them, compare no values.
            dtype = getattr(t, "dtype", None)
            opaque = dtype is not None and (dtype.name in OPAQUE or dtype.name.endswith("_ref"))
            run[key] = t.op if opaque else t
        with tf.Session(graph=graph) as sess:
            try:
                values = sess.run(run)
            except Exception as e:
                return {"error": e, "stage": "run"}
    for key, v in values.items():
        if key != "op" and v is not None:
            # A bytes scalar kept whole (numpy's fixed-width bytes drop trailing NULs).
            result["out:" + key] = (
                np.array(v, dtype=object) if isinstance(v, bytes) else np.asarray(v)
            )
    return result
