"""Hash tables kept in their task's ResourceMgr (HashTableV2) and the kernels that fill and
read them. A table is filled once; filling it again with the same entries is a no-op and with
different ones an error (TF's InitializableLookupTable)."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.kernels.common import invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import ResourceName


class HashTableResource:
    def __init__(self, name: str, key_dtype: Any, value_dtype: Any) -> None:
        self.name = name
        self.key_dtype = dtypes.as_dtype(key_dtype)
        self.value_dtype = dtypes.as_dtype(value_dtype)
        self._lock = threading.Lock()
        self._table: dict[Any, Any] | None = None

    def _key(self, k: Any) -> Any:
        if self.key_dtype == dtypes.string:
            return k if isinstance(k, bytes) else str(k).encode()
        return k.item() if hasattr(k, "item") else k

    def initialize(self, keys: np.ndarray, values: np.ndarray) -> None:
        if keys.shape != values.shape:
            raise invalid(f"Expected shape {list(keys.shape)} for value, got {list(values.shape)}")
        table = {self._key(k): v for k, v in zip(keys.reshape(-1), values.reshape(-1).tolist())}
        with self._lock:
            if self._table is not None:
                if self._table != table:
                    raise errors.FailedPreconditionError(
                        None, None, "Table was already initialized with different data."
                    )
                return
            self._table = table

    def size(self) -> int:
        return 0 if self._table is None else len(self._table)

    def find(self, keys: np.ndarray, default: Any) -> np.ndarray:
        table = self._table
        if table is None:
            raise errors.FailedPreconditionError(None, None, "Table not initialized.")
        out = np.empty(keys.shape, dtype=self.value_dtype.as_numpy_dtype)
        flat = keys.reshape(-1)
        if not flat.size:
            return out
        # One dict probe per distinct key, then a gather back to every position.
        uniq, inverse = np.unique(flat, return_inverse=True)
        found = [table.get(self._key(k), default) for k in uniq]
        out.reshape(-1)[:] = np.asarray(found, dtype=out.dtype)[inverse]
        return out


def table_of(value: Any, node_name: str) -> HashTableResource:
    if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0:
        value = value.item()
    if not isinstance(value, HashTableResource):
        raise invalid(f"{node_name}: input 0 is not a table handle ({type(value).__name__})")
    return value


@kernel("HashTableV2", devices=CPU_ONLY)
def hash_table(node: Any, xp: Any) -> Any:
    where = ResourceName(node)
    key_dtype, value_dtype = node.attrs["key_dtype"], node.attrs["value_dtype"]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        name = where.resolve(ctx.resources)
        t = ctx.resources.lookup_or_create(
            where.container, name, lambda: HashTableResource(name, key_dtype, value_dtype)
        )
        if not isinstance(t, HashTableResource):
            raise invalid(f"Resource '{name}' is not a hash table ({type(t).__name__})")
        return (t,)

    return compute


@kernel("InitializeTableV2", devices=CPU_ONLY)
def initialize_table(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        table_of(ins[0], node.name).initialize(np.asarray(ins[1]), np.asarray(ins[2]))
        return ()

    return compute


def _column(line: bytes, delimiter: bytes, index: int, line_no: int, dtype: Any, where: str) -> Any:
    """Column `index` of a line: -2 the whole line, -1 its number, else a delimited field."""
    if index == -1:
        return line_no
    text = line
    if index >= 0:
        fields = line.split(delimiter)
        if index >= len(fields):
            raise invalid(
                f"Invalid number of columns in {where} line {line_no} ({line!r}) : "
                f"expected at least {index + 1}"
            )
        text = fields[index]
    if dtype == dtypes.string:
        return text
    try:
        return dtype.as_numpy_dtype(text.decode())
    except ValueError:
        raise invalid(
            f"Field {text.decode()} in line {line_no} is not a valid {dtype.name}"
        ) from None


@kernel("InitializeTableFromTextFileV2", devices=CPU_ONLY)
def initialize_table_from_text_file(node: Any, xp: Any) -> Any:
    a = node.attrs
    key_index, value_index = int(a["key_index"]), int(a["value_index"])
    vocab_size = int(a.get("vocab_size", -1))
    delimiter = (a.get("delimiter") or "\t").encode()

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        table = table_of(ins[0], node.name)
        filename = np.asarray(ins[1]).item()
        filename = filename.decode() if isinstance(filename, bytes) else str(filename)
        try:
            with open(filename, "rb") as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            raise errors.NotFoundError(
                None, None, f"{filename}; No such file or directory"
            ) from None
        if vocab_size >= 0:
            if len(lines) < vocab_size:
                raise invalid(
                    f"Invalid vocab_size in {filename}: expected {vocab_size} but got {len(lines)}"
                )
            lines = lines[:vocab_size]
        keys = [
            _column(line, delimiter, key_index, i, table.key_dtype, filename)
            for i, line in enumerate(lines)
        ]
        values = [
            _column(line, delimiter, value_index, i, table.value_dtype, filename)
            for i, line in enumerate(lines)
        ]
        kd = object if table.key_dtype == dtypes.string else table.key_dtype.as_numpy_dtype
        vd = object if table.value_dtype == dtypes.string else table.value_dtype.as_numpy_dtype
        table.initialize(np.asarray(keys, dtype=kd), np.asarray(values, dtype=vd))
        return ()

    return compute


@kernel("LookupTableFindV2", devices=CPU_ONLY)
def lookup_table_find(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        table = table_of(ins[0], node.name)
        default = np.asarray(ins[2])
        if default.ndim:
            raise invalid(f"Expected shape [] for default value, got {list(default.shape)}")
        return (table.find(np.asarray(ins[1]), default.item()),)

    return compute


@kernel("LookupTableSizeV2", devices=CPU_ONLY)
def lookup_table_size(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.int64(table_of(ins[0], node.name).size()),)

    return compute
