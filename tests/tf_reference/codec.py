"""How recorded values are stored: JSON with numpy arrays, bytes and errors tagged.

Shared by the recorders (run in TensorFlow's venv) and the tests (which never need TF), so
it imports nothing but numpy.
"""

from __future__ import annotations

import base64
from typing import Any

import numpy as np


def encode(value: Any) -> Any:
    """numpy arrays/scalars -> {"ndarray": ...}; bytes -> {"bytes": base64}; containers
    recursively; an exception -> {"error": its class name, "message": ...}."""
    if isinstance(value, BaseException):
        return {"error": type(value).__name__, "message": str(value)[:500]}
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.dtype.kind in "OSU":
            flat = [encode(v) for v in array.reshape(-1).tolist()]
            return {"ndarray": flat, "dtype": "object", "shape": list(array.shape)}
        if array.dtype.kind == "c":  # JSON has no complex numbers: [real, imag] pairs
            pairs = np.stack([array.real, array.imag], -1).reshape(-1, 2).tolist()
            return {"ndarray": pairs, "dtype": array.dtype.name, "shape": list(array.shape)}
        return {
            "ndarray": array.reshape(-1).tolist(),
            "dtype": array.dtype.name,
            "shape": list(array.shape),
        }
    if isinstance(value, bytes):
        return {"bytes": base64.b64encode(value).decode("ascii")}
    if isinstance(value, dict):
        return {"dict": {str(k): encode(v) for k, v in value.items()}}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    return value


def decode(value: Any) -> Any:
    """The inverse of encode (errors stay dicts: {"error": class name, "message": ...})."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "ndarray" in value:
        if value["dtype"] == "object":
            flat = [decode(v) for v in value["ndarray"]]
            array = np.empty(len(flat), dtype=object)
            array[:] = flat
            return array.reshape(value["shape"])
        if value["dtype"].startswith("complex"):
            pairs = np.array(value["ndarray"], dtype=np.float64).reshape(-1, 2)
            joined = pairs[:, 0] + 1j * pairs[:, 1]
            return joined.astype(value["dtype"]).reshape(value["shape"])
        return np.array(value["ndarray"], dtype=value["dtype"]).reshape(value["shape"])
    if "bytes" in value:
        return base64.b64decode(value["bytes"])
    if "dict" in value:
        return {k: decode(v) for k, v in value["dict"].items()}
    return value
