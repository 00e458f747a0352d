"""tf.lookup.experimental.DenseHashTable (TF 1.15): a mutable table over a
MutableDenseHashTableV2 resource (open addressing; empty_key and deleted_key are reserved),
with lookup / insert / erase / export, saved by a Saver as its bucket arrays under
`<name>-keys` and `<name>-values` (TF's names, so checkpoints go both ways)."""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    add_to_collection,
    colocate_with,
    convert_to_tensor,
    name_scope,
)
from tfcluster.ops.op_util import make_op
from tfcluster.training.saver import SaveableObject, SaveSpec


class DenseHashTable:
    """A generic mutable hash table using tensors as its backing store (TF's docstring):
    keys of key_dtype map to values of value_dtype shaped like default_value."""

    def __init__(
        self,
        key_dtype: Any,
        value_dtype: Any,
        default_value: Any,
        empty_key: Any,
        deleted_key: Any,
        initial_num_buckets: int | None = None,
        name: str = "MutableDenseHashTable",
        checkpoint: bool = True,
    ) -> None:
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)
        self._default_value = convert_to_tensor(
            default_value, dtype=self._value_dtype, name="default_value"
        )
        self._value_shape = self._default_value.shape
        self._initial_num_buckets = initial_num_buckets
        self._checkpoint = checkpoint
        self._empty_key = convert_to_tensor(empty_key, dtype=self._key_dtype, name="empty_key")
        self._deleted_key = convert_to_tensor(
            deleted_key, dtype=self._key_dtype, name="deleted_key"
        )
        attrs: dict[str, Any] = {
            "container": "",
            "shared_name": "",
            # Shared under the node's name when checkpointed (as TF): a restore finds it.
            "use_node_name_sharing": checkpoint,
            "key_dtype": self._key_dtype,
            "value_dtype": self._value_dtype,
            "value_shape": self._value_shape,
            "initial_num_buckets": 131072 if initial_num_buckets is None else initial_num_buckets,
            "max_load_factor": 0.8,
        }
        self._resource_handle = make_op(
            "MutableDenseHashTableV2", [self._empty_key, self._deleted_key], attrs, name
        ).outputs[0]
        self._table_name = self._resource_handle.op.name.split("/")[-1]
        if checkpoint:
            add_to_collection(GraphKeys.SAVEABLE_OBJECTS, _Saveable(self, name))

    @property
    def name(self) -> str:
        return self._table_name

    @property
    def resource_handle(self) -> Tensor:
        return self._resource_handle

    @property
    def key_dtype(self) -> dtypes.DType:
        return self._key_dtype

    @property
    def value_dtype(self) -> dtypes.DType:
        return self._value_dtype

    def size(self, name: Any = None) -> Tensor:
        scope = name_scope(name, f"{self.name}_Size", [self._resource_handle])
        with scope, colocate_with(self._resource_handle):
            return make_op(
                "LookupTableSizeV2", [self._resource_handle], {}, "LookupTableSizeV2"
            ).outputs[0]

    def lookup(self, keys: Any, name: Any = None) -> Tensor:
        with name_scope(name, f"{self.name}_lookup_table_find", [self._resource_handle, keys]):
            keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
            with colocate_with(self._resource_handle):
                return make_op(
                    "LookupTableFindV2",
                    [self._resource_handle, keys, self._default_value],
                    {"Tin": self._key_dtype, "Tout": self._value_dtype},
                    "LookupTableFindV2",
                ).outputs[0]

    def insert(self, keys: Any, values: Any, name: Any = None) -> Operation:
        return self.insert_or_assign(keys, values, name)

    def insert_or_assign(self, keys: Any, values: Any, name: Any = None) -> Operation:
        """Sets keys' values, adding the keys not there yet."""
        scope = f"{self.name}_lookup_table_insert"
        with name_scope(name, scope, [self._resource_handle, keys, values]):
            keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
            values = convert_to_tensor(values, dtype=self._value_dtype, name="values")
            with colocate_with(self._resource_handle):
                return make_op(
                    "LookupTableInsertV2",
                    [self._resource_handle, keys, values],
                    {"Tin": self._key_dtype, "Tout": self._value_dtype},
                    "LookupTableInsertV2",
                )

    def erase(self, keys: Any, name: Any = None) -> Operation:
        if keys.dtype != self._key_dtype:
            raise TypeError(
                f"Signature mismatch. Keys must be dtype {self._key_dtype}, got {keys.dtype}."
            )
        scope = f"{self.name}_lookup_table_remove"
        with name_scope(name, scope, (self._resource_handle, keys, self._default_value)):
            return make_op(
                "LookupTableRemoveV2",
                [self._resource_handle, keys],
                {"Tin": self._key_dtype},
                "LookupTableRemoveV2",
            )

    remove = erase

    def export(self, name: Any = None) -> tuple[Tensor, Tensor]:
        scope = name_scope(name, f"{self.name}_lookup_table_export_values", [self._resource_handle])
        with scope, colocate_with(self._resource_handle):
            op = make_op(
                "LookupTableExportV2",
                [self._resource_handle],
                {"Tkeys": self._key_dtype, "Tvalues": self._value_dtype},
                "LookupTableExportV2",
            )
        return op.outputs[0], op.outputs[1]


class _Saveable(SaveableObject):
    """The table in a checkpoint: its bucket arrays, restored by LookupTableImportV2."""

    def __init__(self, table: DenseHashTable, name: str) -> None:
        keys, values = table.export()
        device = table.resource_handle.device
        specs = [
            SaveSpec(keys, "", f"{name}-keys", table.key_dtype, device),
            SaveSpec(values, "", f"{name}-values", table.value_dtype, device),
        ]
        super().__init__(table, specs, name)

    def restore(self, restored_tensors: Any, restored_shapes: Any) -> Operation:
        table = self.op
        scope = name_scope(None, f"{table.name}_table_restore")
        with scope, colocate_with(table.resource_handle):
            return make_op(
                "LookupTableImportV2",
                [table.resource_handle, restored_tensors[0], restored_tensors[1]],
                {"Tin": table.key_dtype, "Tout": table.value_dtype},
                "LookupTableImportV2",
            )
