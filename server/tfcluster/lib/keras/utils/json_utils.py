"""The `default=` of json.dumps for Keras configs (numpy values, shapes, functions, objects
with get_config), as TF 1.15's util.serialization.get_json_type turns them into JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tfcluster.framework.tensor_shape import Dimension, TensorShape


def keras_json_default(obj: Any) -> Any:
    if hasattr(obj, "get_config"):
        return {"class_name": type(obj).__name__, "config": obj.get_config()}
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, type):
        return obj.__name__
    if callable(obj):
        return obj.__name__
    if isinstance(obj, Dimension):
        return obj.value
    if isinstance(obj, TensorShape):
        return obj.as_list()
    if isinstance(obj, Mapping):
        return dict(obj)
    if hasattr(obj, "name") and hasattr(obj, "as_numpy_dtype"):
        return obj.name  # a DType
    raise TypeError("Not JSON Serializable:", obj)
