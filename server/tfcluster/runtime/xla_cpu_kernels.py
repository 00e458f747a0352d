"""The kernels of TF 1.15's XLA_CPU device: which ops it takes, and of which dtypes.

TF 1.15's pip wheels give every task an XLA_CPU device beside its CPU; a node goes there only
when asked for by name, and only when XLA has a kernel for its op and dtypes (otherwise TF's
placement error, or the CPU under soft placement). tfcluster runs such a node with its CPU
kernel, as XLA's CPU backend computes the same values. The table is TF's own kernel registry
for XLA_CPU, recorded by tools/record_xla_cpu_kernels.py.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tfcluster.framework import dtypes

DEVICE_TYPE = "XLA_CPU"
# What TF 1.15 reports for its XLA_CPU device's memory (DeviceAttributes.memory_limit).
MEMORY_LIMIT = 17179869184
_TABLE_FILE = Path(__file__).with_name("xla_cpu_kernels.json")


@functools.cache
def _table() -> dict[str, list[dict[str, frozenset[str]]]]:
    with open(_TABLE_FILE, encoding="utf-8") as f:
        raw: dict[str, list[dict[str, list[str]]]] = json.load(f)
    return {
        op: [{attr: frozenset(names) for attr, names in kernel.items()} for kernel in kernels]
        for op, kernels in raw.items()
    }


def has_op(op: str) -> bool:
    return op in _table()


def _dtype_names(value: Any) -> list[str] | None:
    """The dtype names a type or list(type) attr holds (None: not a type attr)."""
    items = value if isinstance(value, list | tuple) else (value,)
    if not all(isinstance(v, dtypes.DType) for v in items):
        return None
    return [v.base_dtype.name for v in items]


def takes(op: str, attrs: Mapping[str, Any]) -> bool:
    """Whether one of XLA_CPU's kernels for `op` takes a node with these attrs."""
    for kernel in _table().get(op, ()):
        ok = True
        for attr, allowed in kernel.items():
            names = _dtype_names(attrs.get(attr)) if attr in attrs else None
            if names is not None and not all(n in allowed for n in names):
                ok = False
                break
        if ok:
            return True
    return False
