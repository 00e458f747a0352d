"""Int64List takes bools as TF 1.15's protobuf does.

TF 1.15 runs on protobuf 3.x, whose integer fields take Python and numpy bools (True is 1):
TF's own TFRecord tutorial writes `tf.train.Int64List(value=[np.bool_ ...])` for a boolean
feature. The upb protobuf tfcluster runs on refuses them ("Expected an int, got a boolean"), so
the constructor of the Int64List message turns bools into ints before building it; other values
go to protobuf unchanged (a float is still refused, with protobuf's TypeError).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from tfcluster.protos import feature_pb2

_BOOLS = (bool, np.bool_)


def _ints(values: Any) -> Any:
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        return values
    values = list(values)
    if not any(isinstance(v, _BOOLS) for v in values):
        return values
    return [int(v) if isinstance(v, _BOOLS) else v for v in values]


def install() -> None:
    """Gives Int64List's constructor protobuf 3.x's bool handling."""
    cls = feature_pb2.Int64List
    build = cls.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if "value" in kwargs:
            kwargs["value"] = _ints(kwargs["value"])
        build(self, *args, **kwargs)

    cls.__init__ = __init__  # type: ignore[method-assign]
