"""The mutable lookup tables: MutableHashTable (scalar values), MutableHashTableOfTensors
(values of a fixed shape) and MutableDenseHashTable (open addressing over bucket arrays, as
TF's: the same hash, probing and growth, so an export lists TF's buckets in TF's order).
Their ops (find, insert, remove, export, import, size) are lookup_tables.py's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels.common import invalid
from tfcluster.kernels.lookup_tables import TableResource
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.kernels.resource_waits import ResourceName, shape_text
from tfcluster.kernels.string_hash import hash64

_U64 = (1 << 64) - 1


class MutableHashTableResource(TableResource):
    """Keys to values of one fixed shape (scalars for MutableHashTable)."""

    kind = "MutableHashTable"

    def __init__(self, name: str, key_dtype: Any, value_dtype: Any, value_shape: Any) -> None:
        super().__init__(name, key_dtype, value_dtype)
        self.value_shape = tuple(value_shape)
        self._table: dict[Any, np.ndarray] = {}

    def size(self) -> int:
        return len(self._table)

    def find(self, keys: np.ndarray, default: np.ndarray) -> np.ndarray:
        out = np.empty((*keys.shape, *self.value_shape), dtype=self.np_values())
        flat_out = out.reshape(-1, *self.value_shape)
        flat = keys.reshape(-1)
        if not flat.size:
            return out
        # One dict probe per distinct key, then a gather back to every position.
        uniq, inverse = np.unique(flat, return_inverse=True)
        with self._lock:
            found = [self._table.get(self.key(k), default) for k in uniq]
        flat_out[...] = np.asarray(found, dtype=out.dtype)[inverse.reshape(-1)]
        return out

    def insert(self, keys: np.ndarray, values: np.ndarray) -> None:
        rows = values.reshape(-1, *self.value_shape)
        with self._lock:
            for k, v in zip(keys.reshape(-1).tolist(), rows):
                self._table[self.key(k)] = v.copy()

    def remove(self, keys: np.ndarray) -> None:
        with self._lock:
            for k in keys.reshape(-1).tolist():
                self._table.pop(self.key(k), None)

    def export(self) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            keys = np.asarray(list(self._table), dtype=self.np_keys()).reshape(-1)
            rows = list(self._table.values())
        values = np.empty((len(rows), *self.value_shape), dtype=self.np_values())
        if rows:
            values[...] = np.stack(rows)
        return keys, values

    def import_values(self, keys: np.ndarray, values: np.ndarray) -> None:
        with self._lock:
            self._table.clear()
        self.insert(keys, values)


class DenseHashTableResource(TableResource):
    """TF's MutableDenseHashTable: a power-of-two array of buckets, probed from the key's hash
    (the integer itself, or Hash64 of a string) at steps 1, 2, 3...; a removed key leaves
    deleted_key in its bucket; the arrays double when an insert would pass max_load_factor.
    Exports are the bucket arrays themselves: keys [buckets, 1], values [buckets, size]."""

    kind = "MutableDenseHashTable"

    def __init__(
        self,
        name: str,
        key_dtype: Any,
        value_dtype: Any,
        value_shape: Any,
        empty_key: np.ndarray,
        deleted_key: np.ndarray,
        num_buckets: int,
        max_load_factor: float,
    ) -> None:
        super().__init__(name, key_dtype, value_dtype)
        self.value_shape = tuple(value_shape)
        if not 0 < max_load_factor < 1:
            raise invalid("max_load_factor must be between 0 and 1, got: " + str(max_load_factor))
        # A key is a scalar, or a vector of key_size elements (the key shape is empty_key's:
        # SDCA's example-state table keys a fingerprint pair), kept as a tuple.
        if empty_key.shape != deleted_key.shape or empty_key.ndim > 1:
            raise invalid(
                f"Empty and deleted keys must have the same shape, got "
                f"{shape_text(empty_key.shape)} and {shape_text(deleted_key.shape)}"
            )
        self.key_size = 1 if empty_key.ndim == 0 else int(empty_key.size)
        self.key_shape = tuple(empty_key.shape)
        self.empty = self._row_keys(empty_key.reshape(1, -1))[0]
        self.deleted = self._row_keys(deleted_key.reshape(1, -1))[0]
        if self.empty == self.deleted:
            raise invalid("Empty and deleted keys cannot be equal")
        self.max_load_factor = max_load_factor
        self._value_size = int(np.prod(self.value_shape, dtype=np.int64))
        self._allocate(num_buckets)

    def _allocate(self, num_buckets: int) -> None:
        if num_buckets < 4 or num_buckets & (num_buckets - 1):
            raise invalid(
                f"Number of buckets must be at least 4 and a power of 2, got: {num_buckets}"
            )
        self.num_buckets = num_buckets
        self._keys: list[Any] = [self.empty] * num_buckets
        self._values = np.zeros((num_buckets, self._value_size), dtype=self.np_values())
        if self.value_dtype == dtypes.string:
            self._values[...] = b""
        self.num_entries = 0

    def _hash(self, k: Any) -> int:
        if isinstance(k, tuple):
            # TF's Hash64Combine of the elements' hashes, from 0.
            h = 0
            for part in k:
                h = h ^ ((self._hash(part) + 0x9E3779B97F4A7800 + (h << 10) + (h >> 4)) & _U64)
            return h
        if isinstance(k, bytes):
            return hash64(k)
        return int(k) & _U64

    def _row_keys(self, keys: np.ndarray) -> list[Any]:
        """The keys of a [n, key_size] (or, for scalar keys, any-shaped) array."""
        if self.key_size == 1 and not self.key_shape:
            return [self.key(k) for k in keys.reshape(-1).tolist()]
        return [tuple(self.key(x) for x in row) for row in keys.reshape(-1, self.key_size).tolist()]

    def _check_key(self, k: Any) -> None:
        if k == self.empty:
            raise invalid("Using the empty_key as a table key is not allowed")
        if k == self.deleted:
            raise invalid("Using the deleted_key as a table key is not allowed")

    def size(self) -> int:
        return self.num_entries

    def check_insert(self, keys: np.ndarray, values: np.ndarray) -> None:
        self.check_types(keys, values)
        want = (*keys.shape[: max(keys.ndim - len(self.key_shape), 0)], *self.value_shape)
        if values.shape != want:
            raise invalid(
                f"Expected shape {shape_text(want)} for value, got {shape_text(values.shape)}"
            )

    def _check_key_rank(self, keys: np.ndarray) -> None:
        """TF's dense table takes a vector of keys: [n] scalars or [n, key_size]."""
        first = keys.shape[0] if keys.ndim else 1
        if keys.ndim != 1 + len(self.key_shape) or keys.size != first * self.key_size:
            want = shape_text([first, *self.key_shape])
            raise invalid(f"Expected key shape {want} got {shape_text(keys.shape)}")

    def _probe(self, k: Any, stop_at_free: bool) -> int:
        """The bucket holding k, or -1; with stop_at_free, the first empty or deleted bucket
        on k's path when k is not there."""
        mask = self.num_buckets - 1
        bucket = self._hash(k) & mask
        keys = self._keys
        for probes in range(1, self.num_buckets + 1):
            here = keys[bucket]
            if here == k:
                return bucket
            if here == self.empty or (stop_at_free and here == self.deleted):
                return bucket if stop_at_free else -1
            bucket = (bucket + probes) & mask
        raise errors.InternalError(None, None, "Internal error in MutableDenseHashTable probe")

    def find(self, keys: np.ndarray, default: np.ndarray) -> np.ndarray:
        self._check_key_rank(keys)
        flat = self._row_keys(keys)
        out = np.empty((len(flat), self._value_size), dtype=self.np_values())
        fill = default.reshape(-1)
        with self._lock:
            for i, k in enumerate(flat):
                self._check_key(k)
                bucket = self._probe(k, stop_at_free=False)
                out[i] = fill if bucket < 0 else self._values[bucket]
        return out.reshape(*keys.shape[: keys.ndim - len(self.key_shape)], *self.value_shape)

    def _insert(self, flat: list[Any], rows: np.ndarray, skip_reserved: bool) -> None:
        for k, row in zip(flat, rows):
            if k == self.empty or k == self.deleted:
                if skip_reserved:
                    continue
                self._check_key(k)
            bucket = self._probe(k, stop_at_free=True)
            if self._keys[bucket] != k:
                self.num_entries += 1
                self._keys[bucket] = k
            self._values[bucket] = row

    def insert(self, keys: np.ndarray, values: np.ndarray) -> None:
        self._check_key_rank(keys)
        flat = self._row_keys(keys)
        rows = values.reshape(len(flat), self._value_size)
        with self._lock:
            if self.num_entries + len(flat) > self.num_buckets * self.max_load_factor:
                grown = self.num_buckets
                while self.num_entries + len(flat) > grown * self.max_load_factor:
                    grown <<= 1
                self._rebucket(grown)
            self._insert(flat, rows, skip_reserved=False)

    def _rebucket(self, num_buckets: int) -> None:
        old_keys, old_values = self._keys, self._values
        self._allocate(num_buckets)
        self._insert(old_keys, old_values, skip_reserved=True)

    def remove(self, keys: np.ndarray) -> None:
        self._check_key_rank(keys)
        flat = self._row_keys(keys)
        with self._lock:
            for k in flat:
                self._check_key(k)
                bucket = self._probe(k, stop_at_free=False)
                if bucket >= 0:
                    self._keys[bucket] = self.deleted
                    self.num_entries -= 1

    def export(self) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            keys = np.asarray(self._keys, dtype=self.np_keys()).reshape(-1, self.key_size)
            return keys, self._values.copy()

    def check_import(self, keys: np.ndarray, values: np.ndarray) -> None:
        """An import takes what an export gives: keys [n, 1] (TF's key matrix of one column
        per key element) and values [n, *value_shape]."""
        self.check_types(keys, values)
        want = (*keys.shape[:-1], *self.value_shape)
        if values.shape != want or keys.ndim == 0 or keys.shape[-1] != self.key_size:
            raise invalid(
                f"Expected shape {shape_text(want)} for value, got {shape_text(values.shape)}"
            )

    def import_values(self, keys: np.ndarray, values: np.ndarray) -> None:
        """The buckets themselves, as an export gave them (TF restores a checkpoint so): no
        rehashing; the entries are the buckets holding neither reserved key."""
        flat = self._row_keys(keys)
        with self._lock:
            self.num_buckets = len(flat)
            self._keys = flat
            self._values = values.reshape(len(flat), self._value_size).copy()
            self.num_entries = sum(1 for k in flat if k != self.empty and k != self.deleted)


def _table_kernel(make: Callable[[Any, str, list[Any]], TableResource], kind: str) -> Any:
    def factory(node: Any, xp: Any) -> Any:
        where = ResourceName(node)
        if node.attrs.get("use_node_name_sharing") and not node.attrs.get("shared_name"):
            where._shared = node.name  # TF shares the table under the node's name

        def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
            name = where.resolve(ctx.resources)
            table = ctx.resources.lookup_or_create(
                where.container, name, lambda: make(node, name, ins)
            )
            if not isinstance(table, TableResource) or table.kind != kind:
                raise invalid(f"Resource '{name}' is not a {node.op} table")
            return (table,)

        return compute

    return factory


def _value_shape(node: Any) -> list[int]:
    shape = TensorShape(node.attrs.get("value_shape") or [])
    if not shape.is_fully_defined():
        raise invalid(f"{node.name}: value_shape must be fully defined, got {shape}")
    return [int(d or 0) for d in shape.as_list()]


def _hash_table(node: Any, name: str, ins: list[Any]) -> TableResource:
    a = node.attrs
    return MutableHashTableResource(name, a["key_dtype"], a["value_dtype"], [])


def _hash_table_of_tensors(node: Any, name: str, ins: list[Any]) -> TableResource:
    a = node.attrs
    return MutableHashTableResource(name, a["key_dtype"], a["value_dtype"], _value_shape(node))


def _dense_table(node: Any, name: str, ins: list[Any]) -> TableResource:
    a = node.attrs
    if len(ins) < 2:
        # The first MutableDenseHashTable has no deleted_key input; TF's kernel asks for it.
        raise invalid("No deleted_key input: MutableDenseHashTable needs the V2 op")
    return DenseHashTableResource(
        name,
        a["key_dtype"],
        a["value_dtype"],
        _value_shape(node),
        np.asarray(ins[0]),
        np.asarray(ins[1]),
        int(a.get("initial_num_buckets", 131072)),
        float(a.get("max_load_factor", 0.8)),
    )


for _suffix in ("V2", ""):
    kernel(f"MutableHashTable{_suffix}", devices=CPU_ONLY)(
        _table_kernel(_hash_table, MutableHashTableResource.kind)
    )
    kernel(f"MutableHashTableOfTensors{_suffix}", devices=CPU_ONLY)(
        _table_kernel(_hash_table_of_tensors, MutableHashTableResource.kind)
    )
    kernel(f"MutableDenseHashTable{_suffix}", devices=CPU_ONLY)(
        _table_kernel(_dense_table, DenseHashTableResource.kind)
    )
