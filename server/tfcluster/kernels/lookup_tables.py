"""Lookup tables kept in their task's ResourceMgr and the kernels that fill and read them.

HashTable(V2) is filled once: filling it again with the same entries is a no-op and with
different ones an error (TF's InitializableLookupTable). The mutable tables (MutableHashTable,
MutableHashTableOfTensors, MutableDenseHashTable: kernels/mutable_tables.py) take inserts,
removes and imports. Every LookupTable* op works on any of them through TableResource, with
TF's checks of key and value types and shapes; the first versions of the ops (a string ref
handle instead of a resource) run the same kernels."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.kernels.common import invalid
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import ResourceName, shape_text


def _unsupported(what: str, kind: str) -> errors.OpError:
    return errors.UnimplementedError(None, None, f"{what} not supported by {kind} implementations")


class TableResource:
    """What every table kernel may ask of a table; TF's LookupInterface checks."""

    kind = "LookupInterface"

    def __init__(self, name: str, key_dtype: Any, value_dtype: Any) -> None:
        self.name = name
        self.key_dtype = dtypes.as_dtype(key_dtype)
        self.value_dtype = dtypes.as_dtype(value_dtype)
        self.value_shape: tuple[int, ...] = ()
        self._lock = threading.Lock()

    # ---- TF's argument checks (lookup_interface.cc) -------------------------------------
    def check_types(self, keys: np.ndarray, values: np.ndarray | None) -> None:
        got = dtypes.as_dtype(keys.dtype) if keys.dtype != object else dtypes.string
        if got != self.key_dtype:
            raise invalid(f"Key must be type {self.key_dtype.name} but got {got.name}")
        if values is not None:
            vgot = dtypes.as_dtype(values.dtype) if values.dtype != object else dtypes.string
            if vgot != self.value_dtype:
                raise invalid(f"Value must be type {self.value_dtype.name} but got {vgot.name}")

    def check_find(self, keys: np.ndarray, default: np.ndarray) -> None:
        self.check_types(keys, default)
        if default.shape != self.value_shape:
            raise invalid(
                f"Expected shape {shape_text(self.value_shape)} for default value, got "
                f"{shape_text(default.shape)}"
            )

    def check_insert(self, keys: np.ndarray, values: np.ndarray) -> None:
        self.check_types(keys, values)
        want = (*keys.shape, *self.value_shape)
        if values.shape != want:
            raise invalid(
                f"Expected shape {shape_text(want)} for value, got {shape_text(values.shape)}"
            )

    def check_import(self, keys: np.ndarray, values: np.ndarray) -> None:
        self.check_insert(keys, values)

    def key(self, k: Any) -> Any:
        if self.key_dtype == dtypes.string:
            return k if isinstance(k, bytes) else str(k).encode()
        return k.item() if hasattr(k, "item") else k

    def np_values(self) -> Any:
        return object if self.value_dtype == dtypes.string else self.value_dtype.as_numpy_dtype

    def np_keys(self) -> Any:
        return object if self.key_dtype == dtypes.string else self.key_dtype.as_numpy_dtype

    # ---- operations (subclasses) --------------------------------------------------------
    def size(self) -> int:
        raise NotImplementedError

    def find(self, keys: np.ndarray, default: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def insert(self, keys: np.ndarray, values: np.ndarray) -> None:
        raise _unsupported("Insert", self.kind)

    def remove(self, keys: np.ndarray) -> None:
        raise _unsupported("Remove", self.kind)

    def export(self) -> tuple[np.ndarray, np.ndarray]:
        raise _unsupported("ExportValues", self.kind)

    def import_values(self, keys: np.ndarray, values: np.ndarray) -> None:
        raise _unsupported("ImportValues", self.kind)


class HashTableResource(TableResource):
    kind = "InitializableLookupTable"

    def __init__(self, name: str, key_dtype: Any, value_dtype: Any) -> None:
        super().__init__(name, key_dtype, value_dtype)
        self._table: dict[Any, Any] | None = None

    _key = TableResource.key

    def import_values(self, keys: np.ndarray, values: np.ndarray) -> None:
        self.initialize(keys, values)

    def export(self) -> tuple[np.ndarray, np.ndarray]:
        table = self._table or {}
        keys = np.asarray(list(table), dtype=self.np_keys()).reshape(-1)
        values = np.asarray(list(table.values()), dtype=self.np_values()).reshape(-1)
        return keys, values

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

    def find(self, keys: np.ndarray, default: np.ndarray) -> np.ndarray:
        if default.ndim:
            raise invalid(f"Expected shape [] for default value, got {list(default.shape)}")
        return self._find(keys, default.item())

    def _find(self, keys: np.ndarray, default: Any) -> np.ndarray:
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


def table_of(value: Any, node_name: str) -> TableResource:
    if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0:
        value = value.item()
    if not isinstance(value, TableResource):
        raise invalid(f"{node_name}: input 0 is not a table handle ({type(value).__name__})")
    return value


def _initializable(value: Any, node_name: str) -> HashTableResource:
    table = table_of(value, node_name)
    if not isinstance(table, HashTableResource):
        raise invalid(f"Table {table.name} is not an initializable table ({table.kind})")
    return table


@kernel("HashTable", devices=CPU_ONLY)
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


@kernel("InitializeTable", devices=CPU_ONLY)
@kernel("InitializeTableV2", devices=CPU_ONLY)
def initialize_table(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        _initializable(ins[0], node.name).initialize(np.asarray(ins[1]), np.asarray(ins[2]))
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


@kernel("InitializeTableFromTextFile", devices=CPU_ONLY)
@kernel("InitializeTableFromTextFileV2", devices=CPU_ONLY)
def initialize_table_from_text_file(node: Any, xp: Any) -> Any:
    a = node.attrs
    key_index, value_index = int(a["key_index"]), int(a["value_index"])
    vocab_size = int(a.get("vocab_size", -1))
    delimiter = (a.get("delimiter") or "\t").encode()

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        table = _initializable(ins[0], node.name)
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


@kernel("LookupTableFind", devices=CPU_ONLY)
@kernel("LookupTableFindV2", devices=CPU_ONLY)
def lookup_table_find(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        table = table_of(ins[0], node.name)
        keys, default = np.asarray(ins[1]), np.asarray(ins[2])
        table.check_find(keys, default)
        return (table.find(keys, default),)

    return compute


@kernel("LookupTableSize", devices=CPU_ONLY)
@kernel("LookupTableSizeV2", devices=CPU_ONLY)
def lookup_table_size(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (np.int64(table_of(ins[0], node.name).size()),)

    return compute


@kernel("LookupTableInsert", devices=CPU_ONLY)
@kernel("LookupTableInsertV2", devices=CPU_ONLY)
def lookup_table_insert(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        table = table_of(ins[0], node.name)
        keys, values = np.asarray(ins[1]), np.asarray(ins[2])
        table.check_insert(keys, values)
        table.insert(keys, values)
        return ()

    return compute


@kernel("LookupTableRemoveV2", devices=CPU_ONLY)
def lookup_table_remove(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        table = table_of(ins[0], node.name)
        keys = np.asarray(ins[1])
        table.check_types(keys, None)
        table.remove(keys)
        return ()

    return compute


@kernel("LookupTableExport", devices=CPU_ONLY)
@kernel("LookupTableExportV2", devices=CPU_ONLY)
def lookup_table_export(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return table_of(ins[0], node.name).export()

    return compute


@kernel("LookupTableImport", devices=CPU_ONLY)
@kernel("LookupTableImportV2", devices=CPU_ONLY)
def lookup_table_import(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        table = table_of(ins[0], node.name)
        keys, values = np.asarray(ins[1]), np.asarray(ins[2])
        table.check_import(keys, values)
        table.import_values(keys, values)
        return ()

    return compute
