"""A pytest plugin that collects, while tfcluster's own tests run, one small example of every
op type tf.raw_ops implements: the inputs its CPU kernel was given and the node's attrs (the
ones TF's signature has), into raw_op_examples.json. record_raw_op_examples.py then runs each
example as `tf.raw_ops.<Op>(**kwargs)` on TensorFlow 1.15, and test_raw_ops_reference.py runs
it on tfcluster and compares.

    PYTHONPATH=server:operator:tests/tf_reference python -m pytest -p collect_raw_op_examples \
        tests/unit -q -p no:cacheprovider

Ops whose inputs are resources, references or variants (variables, queues, tables, datasets)
cannot be replayed from values and are not collected.
"""

from __future__ import annotations

import atexit
import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
from tfcluster.framework import dtypes, op_signatures
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.runtime import kernel_table

from tf_reference.raw_op_replay import repo_relative

OUT = Path(os.environ.get("RAW_OP_EXAMPLES_OUT", Path(__file__).with_name("raw_op_examples.json")))
MAX_ELEMENTS = 4096
# dtypes whose values cannot travel as plain JSON arrays (quantized, bfloat16) or be fed.
_SKIP_DTYPES = {"resource", "variant", "bfloat16", "qint8", "quint8", "qint16", "quint16", "qint32"}

# Ops whose attrs name process-local state (a Python function's token), or whose inputs name
# files a test made and removed.
_NOT_REPLAYABLE = {
    "PyFunc",
    "PyFuncStateless",
    "EagerPyFunc",
    "MatchingFiles",
    "MergeV2Checkpoints",
    "ReadFile",
    "Restore",
    "RestoreSlice",
    "RestoreV2",
    "Save",
    "SaveSlices",
    "SaveV2",
    "WriteFile",
}

_examples: dict[str, dict[str, Any]] = {}


def _plain_attr(value: Any) -> Any:
    if isinstance(value, dtypes.DType):
        return {"dtype": value.name}
    if isinstance(value, TensorShape):
        return {"shape": value.as_list() if value.ndims is not None else None}
    if isinstance(value, (list, tuple)):
        return [_plain_attr(v) for v in value]
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"no plain form for attr value {value!r}")


def _encode(array: np.ndarray) -> dict[str, Any]:
    if array.dtype.kind in "OS":
        flat = [v if isinstance(v, bytes) else bytes(v) for v in array.reshape(-1).tolist()]
        text = [repo_relative(b.decode("latin-1")) for b in flat]
        return {"bytes": text, "shape": list(array.shape)}
    if array.dtype.kind == "c":
        pairs = np.stack([array.real, array.imag], -1).reshape(-1, 2).tolist()
        return {"complex": pairs, "dtype": array.dtype.name, "shape": list(array.shape)}
    return {
        "values": array.reshape(-1).tolist(),
        "dtype": array.dtype.name,
        "shape": list(array.shape),
    }


def _example(node: Any, inputs: list[Any]) -> dict[str, Any] | None:
    sig = op_signatures.lookup(node.op)
    if sig is None or node.op in _NOT_REPLAYABLE or any(a.is_ref for a in sig.inputs):
        return None
    if any(a.type in ("func", "list(func)", "tensor") for a in sig.attrs):
        return None
    arrays = []
    for v in inputs:
        if not isinstance(v, (np.ndarray, np.generic)):
            return None
        a = np.asarray(v)
        if a.dtype.fields or a.dtype.kind not in "biufcOS":
            return None
        arrays.append(a)
    if sum(a.size for a in arrays) > MAX_ELEMENTS:
        return None
    attrs = {}
    for attr in sig.attrs:
        if attr.name in node.attrs:
            try:
                attrs[attr.name] = _plain_attr(node.attrs[attr.name])
            except TypeError:
                return None
    kwargs: dict[str, Any] = {}
    at = 0
    for arg in sig.inputs:
        if arg.number_attr:
            n = attrs.get(arg.number_attr)
        elif arg.type_list_attr:
            n = len(attrs.get(arg.type_list_attr, []))
        else:
            n = None
        if n is None:
            kwargs[arg.name] = {"one": at}
            at += 1
        else:
            kwargs[arg.name] = {"list": list(range(at, at + int(n)))}
            at += int(n)
    if at != len(arrays):
        return None
    types = [a for a in attrs.values() if isinstance(a, dict) and "dtype" in a]
    types += [t for a in attrs.values() if isinstance(a, list) for t in a if isinstance(t, dict)]
    if any(t.get("dtype") in _SKIP_DTYPES for t in types):
        return None
    return {
        "inputs": [_encode(a) for a in arrays],
        "args": kwargs,
        "attrs": {k: v for k, v in attrs.items() if k not in sig.inferred_attrs()},
        "size": int(sum(a.size for a in arrays)),
    }


def _rank(example: dict[str, Any]) -> tuple[bool, int]:
    """The smallest example, but one with values before an empty one."""
    return (example["size"] == 0, example["size"])


def _wrap(kdef: kernel_table.KernelDef) -> kernel_table.KernelDef:
    factory = kdef.factory

    def wrapped(node: Any) -> Any:
        fn = factory(node)
        if kdef.is_async:
            return fn

        def compute(ctx: Any, inputs: list[Any]) -> Any:
            given = list(inputs)
            out = fn(ctx, inputs)
            # Only examples the kernel ran without error (error paths are tested apart);
            # collecting must never break the test.
            try:
                ex = _example(node, given)
                old = _examples.get(node.op)
                if ex is not None and (old is None or _rank(ex) < _rank(old)):
                    _examples[node.op] = ex
            except Exception:
                pass
            return out

        return compute

    return dataclasses.replace(kdef, factory=wrapped)


def pytest_configure(config: Any) -> None:
    kernel_table._ensure_loaded()
    for key, kdef in list(kernel_table._KERNELS.items()):
        if key[1] == "CPU":
            kernel_table._KERNELS[key] = _wrap(kdef)


@atexit.register
def _save() -> None:
    if not _examples:
        return
    out = OUT.with_name(f"{OUT.stem}.{os.getpid()}.json")
    with out.open("w") as f:
        json.dump(_examples, f, sort_keys=True)


def merge(paths: list[str], out: Path = OUT) -> int:
    """Keeps the smallest example of each implemented op from the collected files, keyed by
    the raw op's own keyword names (TF's Python names: Split's `axis` for split_dim)."""
    from tfcluster.api import raw_ops

    best: dict[str, dict[str, Any]] = {}
    for path in paths:
        with open(path) as f:
            for op, ex in json.load(f).items():
                if (
                    op in raw_ops.implemented_ops()
                    and op not in _NOT_REPLAYABLE
                    and (op not in best or _rank(ex) < _rank(best[op]))
                ):
                    best[op] = ex
    lines = []
    for op, ex in sorted(best.items()):
        sig = op_signatures.lookup(op)
        assert sig is not None
        python = {target: param for param, target in sig.renames}
        entry = {
            "op": op,
            "inputs": ex["inputs"],
            "args": {python.get(k, k): v for k, v in ex["args"].items()},
            "attrs": {python.get(k, k): v for k, v in ex["attrs"].items()},
        }
        lines.append(json.dumps(entry, sort_keys=True))
    out.write_text("[\n" + ",\n".join(lines) + "\n]\n")
    return len(lines)
