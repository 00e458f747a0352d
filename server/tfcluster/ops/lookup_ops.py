"""Lookup tables as TF 1.15's lookup_ops builds them: a HashTableV2 resource filled once by
an initializer op (kept in the TABLE_INITIALIZERS collection, run by tables_initializer) and
read by LookupTableFindV2. index_table_from_tensor / index_table_from_file map strings or
integers to ids, with out-of-vocabulary keys hashed into extra buckets (Fingerprint64)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    add_to_collection,
    convert_to_tensor,
    get_collection,
    name_scope,
)
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops import array_ops, math_ops, string_ops
from tfcluster.ops.op_util import Outputs, make_op


def _handle_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.resource, TensorShape([]))]


def _ref_handle_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    # The first table ops hand out a mutable string handle (container, name).
    return [(dtypes.string._as_ref, TensorShape([2]))]


def _table_value_shape(handle: Tensor) -> TensorShape | None:
    """The value shape the table op declares (None when the handle is not a table op's).
    TF knows it through the resource handle's shape data: a string ref handle has none."""
    op = getattr(handle, "op", None)
    if op is None or op.type not in TABLE_OPS or not op.type.endswith("V2"):
        return None
    return TensorShape(op.attrs.get("value_shape") or [])


def _check_table_dtypes(handle: Tensor, attrs: dict[str, Any], key: str, value: str) -> None:
    """TF reads a resource table's key and value dtypes from the handle at graph time."""
    op = getattr(handle, "op", None)
    if op is None or op.type not in TABLE_OPS or not op.type.endswith("V2"):
        return
    for attr, table_attr in ((key, "key_dtype"), (value, "value_dtype")):
        want = op.attrs.get(table_attr)
        if attr in attrs and want is not None:
            want, got = dtypes.as_dtype(want), dtypes.as_dtype(attrs[attr])
            if want != got:
                raise ValueError(
                    f"Trying to read value with wrong dtype. Expected {want.name} got {got.name}"
                )


def _find_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    _check_table_dtypes(inputs[0], attrs, "Tin", "Tout")
    value_shape = _table_value_shape(inputs[0])
    if value_shape is None:
        return [(attrs["Tout"], TensorShape(None))]
    keys = inputs[1].shape
    key_rank = _table_key_rank(inputs[0])
    if key_rank and keys.ndims is not None:
        keys = TensorShape(keys.as_list()[: keys.ndims - key_rank])
    return [(attrs["Tout"], keys.concatenate(value_shape))]


def _table_key_rank(handle: Tensor) -> int:
    """A dense hash table keyed by vectors (its empty_key's rank) looks up [n, key_size]."""
    op = getattr(handle, "op", None)
    if op is None or op.type != "MutableDenseHashTableV2" or not op.inputs:
        return 0
    return op.inputs[0].shape.ndims or 0


def _update_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    _check_table_dtypes(inputs[0], attrs, "Tin", "Tout")
    return []


def _export_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    _check_table_dtypes(inputs[0], attrs, "Tkeys", "Tvalues")
    value_shape = _table_value_shape(inputs[0])
    values = (
        TensorShape(None) if value_shape is None else TensorShape([None]).concatenate(value_shape)
    )
    return [(attrs["Tkeys"], TensorShape([None])), (attrs["Tvalues"], values)]


_SIZE = op_def_registry.fixed((dtypes.int64, TensorShape([])))

# Tables: HashTable filled once by an initializer; the mutable ones take inserts. Each op's
# first version takes a string ref handle instead of a resource (the same kernels).
TABLE_OPS = (
    "HashTableV2",
    "HashTable",
    "MutableHashTableV2",
    "MutableHashTable",
    "MutableHashTableOfTensorsV2",
    "MutableHashTableOfTensors",
    "MutableDenseHashTableV2",
    "MutableDenseHashTable",
)
_TABLE_USERS: dict[str, Any] = {
    "InitializeTable": op_def_registry.no_outputs,
    "InitializeTableFromTextFile": op_def_registry.no_outputs,
    "LookupTableFind": _find_infer,
    "LookupTableSize": _SIZE,
    "LookupTableInsert": _update_infer,
    "LookupTableExport": _export_infer,
    "LookupTableImport": _update_infer,
}
for _op in TABLE_OPS:
    _infer = _handle_infer if _op.endswith("V2") else _ref_handle_infer
    op_def_registry.register(_op, _infer, stateful=True)
for _op, _infer in _TABLE_USERS.items():
    # The handle is a reference input: the op runs where the table is.
    op_def_registry.register(_op, _infer, ref_inputs=[0], stateful=True)
    op_def_registry.register(f"{_op}V2", _infer, ref_inputs=[0], stateful=True)
op_def_registry.register("LookupTableRemoveV2", _update_infer, ref_inputs=[0], stateful=True)
OP_TYPES = (
    *TABLE_OPS,
    *_TABLE_USERS,
    *(f"{op}V2" for op in _TABLE_USERS),
    "LookupTableRemoveV2",
)


class TextFileIndex:
    WHOLE_LINE = -2
    LINE_NUMBER = -1


class TableInitializerBase:
    def __init__(self, key_dtype: Any, value_dtype: Any) -> None:
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self) -> dtypes.DType:
        return self._key_dtype

    @property
    def value_dtype(self) -> dtypes.DType:
        return self._value_dtype

    def initialize(self, table: Any) -> Operation:
        raise NotImplementedError

    @property
    def _shared_name(self) -> str:
        """The name a table it fills shares its resource by ("": the table makes one)."""
        return ""


class KeyValueTensorInitializer(TableInitializerBase):
    """Fills a table from a keys tensor and a values tensor (one value per key)."""

    def __init__(
        self,
        keys: Any,
        values: Any,
        key_dtype: Any = None,
        value_dtype: Any = None,
        name: Any = None,
    ) -> None:
        # TF 1.15 opens no scope of its own: the tensors are made where the caller is, and
        # `name` scopes only the op filling the table.
        self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
        self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
        self._name = name if name is not None else "key_value_init"
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table: Any) -> Operation:
        with name_scope(self._name, values=(table.resource_handle, self._keys, self._values)):
            op = make_op(
                "LookupTableImportV2",
                [table.resource_handle, self._keys, self._values],
                {"Tin": self._keys.dtype, "Tout": self._values.dtype},
                "LookupTableImportV2",
            )
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, op)
        return op


class TextFileInitializer(TableInitializerBase):
    """Fills a table from a text file: keys and values are columns of each line (or the whole
    line, or the line number)."""

    def __init__(
        self,
        filename: Any,
        key_dtype: Any,
        key_index: int,
        value_dtype: Any,
        value_index: int,
        vocab_size: int | None = None,
        delimiter: str = "\t",
        name: Any = None,
    ) -> None:
        if not isinstance(filename, Tensor) and not filename:
            raise ValueError(f"Filename required for {name}.")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"Invalid vocab_size {vocab_size}.")
        self._filename = filename
        self._filename_arg = filename
        self._key_index = key_index
        self._value_index = value_index
        self._vocab_size = vocab_size
        self._delimiter = delimiter
        self._name = name
        super().__init__(key_dtype, value_dtype)

    def initialize(self, table: Any) -> Operation:
        with name_scope(self._name, "text_file_init", (table.resource_handle,)):
            filename = convert_to_tensor(self._filename, dtypes.string, name="asset_filepath")
            op = make_op(
                "InitializeTableFromTextFileV2",
                [table.resource_handle, filename],
                {
                    "key_index": self._key_index,
                    "value_index": self._value_index,
                    "vocab_size": -1 if self._vocab_size is None else self._vocab_size,
                    "delimiter": self._delimiter,
                },
                "InitializeTableFromTextFileV2",
            )
        add_to_collection(GraphKeys.TABLE_INITIALIZERS, op)
        if isinstance(filename, Tensor) and filename.op.type == "Const":
            add_to_collection(GraphKeys.ASSET_FILEPATHS, filename)
        return op

    @property
    def _shared_name(self) -> str:
        # TF 1.15's: tables filled from one file alike share one resource. (%-formatting on
        # purpose: TF formats the filename argument as given, bytes and tensors too.)
        if self._vocab_size:
            return "hash_table_%s_%d_%s_%s" % (  # noqa: UP031
                self._filename_arg,
                self._vocab_size,
                self._key_index,
                self._value_index,
            )
        return "hash_table_%s_%s_%s" % (  # noqa: UP031
            self._filename_arg,
            self._key_index,
            self._value_index,
        )


class HashTable:
    """A table of keys to values fixed by its initializer; default_value for missing keys."""

    def __init__(
        self,
        initializer: TableInitializerBase,
        default_value: Any,
        name: Any = None,
        *,  # TF 1.15's StaticHashTable takes no shared_name (its v2 HashTable does)
        shared_name: Any = None,
    ) -> None:
        # As TF 1.15's StaticHashTable: no scope of its own; the default value, the table op
        # (`name`, else "hash_table") and the initializer's op are made in the caller's scope,
        # and the table's name is its op's last name component.
        self._key_dtype = initializer.key_dtype
        self._value_dtype = initializer.value_dtype
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        if not shared_name:
            # As TF 1.15: a table always has a shared name (its file's, else a fresh one), so
            # that every kernel and session on its device reads the one resource.
            shared_name = initializer._shared_name or f"hash_table_{uuid.uuid4()}"
        self._handle = make_op(
            "HashTableV2",
            [],
            {
                "shared_name": shared_name,
                "use_node_name_sharing": False,
                "key_dtype": initializer.key_dtype,
                "value_dtype": initializer.value_dtype,
                "container": "",
            },
            name or "hash_table",
        ).outputs[0]
        self._name = self._handle.op.name.split("/")[-1]
        self._init_op = initializer.initialize(self)

    @property
    def resource_handle(self) -> Tensor:
        return self._handle

    @property
    def init(self) -> Operation:
        return self._init_op

    initializer = init

    @property
    def key_dtype(self) -> dtypes.DType:
        return self._key_dtype

    @property
    def value_dtype(self) -> dtypes.DType:
        return self._value_dtype

    @property
    def default_value(self) -> Tensor:
        return self._default_value

    @property
    def name(self) -> str:
        return self._name

    def size(self, name: Any = None) -> Tensor:
        with name_scope(name, f"{self._name}_Size"):
            return make_op("LookupTableSizeV2", [self._handle], {}, "LookupTableSizeV2").outputs[0]

    def export(self, name: Any = None) -> tuple[Tensor, Tensor]:
        """Every key in the table and its value (in the table's own order)."""
        with name_scope(name, f"{self._name}_Export", [self._handle]):
            op = make_op(
                "LookupTableExportV2",
                [self._handle],
                {"Tkeys": self._key_dtype, "Tvalues": self._value_dtype},
                "LookupTableExportV2",
            )
        keys, values = op.outputs[0], op.outputs[1]
        values.set_shape(keys.shape)  # scalar values: one per key
        return keys, values

    def lookup(self, keys: Any, name: Any = None) -> Any:
        from tfcluster.framework.sparse_tensor import SparseTensor

        values = keys.values if isinstance(keys, SparseTensor) else keys
        values = convert_to_tensor(values, dtype=self._key_dtype)
        if values.dtype.base_dtype != self._key_dtype:
            raise TypeError(
                f"Signature mismatch. Keys must be dtype {self._key_dtype.name}, got "
                f"{values.dtype.base_dtype.name}."
            )
        with name_scope(name, f"{self._name}_Lookup"):
            found = make_op(
                "LookupTableFindV2",
                [self._handle, values, self._default_value],
                {"Tin": self._key_dtype, "Tout": self._value_dtype},
                "LookupTableFindV2",
            ).outputs[0]
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, found, keys.dense_shape)
        return found


class IdTable:
    """An index table plus out-of-vocabulary buckets (TF's IdTableWithHashBuckets), named
    after its table: its lookups are made under `<table name>_Lookup`."""

    def __init__(self, table: HashTable, num_oov_buckets: int, key_dtype: dtypes.DType) -> None:
        self._table = table
        self._num_oov_buckets = num_oov_buckets
        self._key_dtype = key_dtype
        self._name = table.name

    @property
    def name(self) -> str:
        return self._name

    @property
    def init(self) -> Operation:
        return self._table.init

    initializer = init

    def size(self, name: Any = None) -> Tensor:
        with name_scope(name, f"{self._name}_Size"):
            return math_ops.add(self._table.size(), self._num_oov_buckets)

    def lookup(self, keys: Any, name: Any = None) -> Any:
        from tfcluster.framework.sparse_tensor import SparseTensor

        values = keys.values if isinstance(keys, SparseTensor) else keys
        values = convert_to_tensor(values)
        if self._table.key_dtype.base_dtype == dtypes.int64:
            values = math_ops.cast(values, dtypes.int64)
        if not self._num_oov_buckets:
            ids = self._table.lookup(values, name=name)
        else:
            with name_scope(name, f"{self._name}_Lookup"):
                as_str = values if values.dtype == dtypes.string else string_ops.as_string(values)
                buckets = string_ops.string_to_hash_bucket_fast(
                    as_str, self._num_oov_buckets, name="hash_bucket"
                )
                ids = self._table.lookup(values)
                buckets = math_ops.add(buckets, self._table.size())
                known = math_ops.not_equal(ids, self._table.default_value)
                ids = array_ops.where_v2(known, ids, buckets)
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, ids, keys.dense_shape)
        return ids


def index_table_from_tensor(
    vocabulary_list: Any,
    num_oov_buckets: int = 0,
    default_value: int = -1,
    hasher_spec: Any = None,
    dtype: Any = dtypes.string,
    name: Any = None,
) -> IdTable:
    """A table from each vocabulary entry to its position (int64), built with TF 1.15's ops
    in its order (their count seeds every random op made after them)."""
    if vocabulary_list is None:
        raise ValueError("vocabulary_list must be specified.")
    if num_oov_buckets > 0 and default_value != -1:
        raise ValueError("Can't specify default_value with num_oov_buckets > 0.")
    if num_oov_buckets < 0:
        raise ValueError(f"num_oov_buckets must be greater or equal than 0, got {num_oov_buckets}.")
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "string_to_index"):
        keys = convert_to_tensor(vocabulary_list)
        if keys.dtype.is_integer != dtype.is_integer:
            raise ValueError(f"Expected {dtype.name}, got {keys.dtype.name}.")
        if not dtype.is_integer and keys.dtype.base_dtype != dtype:
            raise ValueError(f"Expected {dtype!r}, got {keys.dtype!r}.")
        values = math_ops.cast(math_ops.range(array_ops.size(keys)), dtypes.int64)
        with name_scope(None, "hash_table"):
            if keys.dtype.is_integer:
                keys = math_ops.cast(keys, dtypes.int64)
            init = KeyValueTensorInitializer(keys, values, name="table_init")
            table = HashTable(init, default_value)
    return IdTable(table, num_oov_buckets, dtypes.int64 if dtype.is_integer else dtype)


def index_table_from_file(
    vocabulary_file: Any = None,
    num_oov_buckets: int = 0,
    vocab_size: int | None = None,
    default_value: int = -1,
    hasher_spec: Any = None,
    key_dtype: Any = dtypes.string,
    name: Any = None,
    key_column_index: int = TextFileIndex.WHOLE_LINE,
    value_column_index: int = TextFileIndex.LINE_NUMBER,
    delimiter: str = "\t",
) -> IdTable:
    """A table from each line of a vocabulary file to its line number (int64)."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    if num_oov_buckets < 0:
        raise ValueError(f"num_oov_buckets must be greater or equal than 0, got {num_oov_buckets}.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(f"vocab_size must be greater than 0, got {vocab_size}.")
    key_dtype = dtypes.as_dtype(key_dtype)
    table_dtype = dtypes.int64 if key_dtype.is_integer else key_dtype
    # As TF 1.15: the table and its initializer in a scope of their own.
    with name_scope(name, "string_to_index"), name_scope(None, "hash_table"):
        init = TextFileInitializer(
            vocabulary_file,
            table_dtype,
            key_column_index,
            dtypes.int64,
            value_column_index,
            vocab_size,
            delimiter,
            name="table_init",
        )
        table = HashTable(init, default_value)
    return IdTable(table, num_oov_buckets, table_dtype)


def tables_initializer(name: str = "init_all_tables") -> Operation:
    """One op running every table initializer of the graph."""
    from tfcluster.ops.control_flow_ops import group, no_op

    inits = get_collection(GraphKeys.TABLE_INITIALIZERS)
    return group(*inits, name=name) if inits else no_op(name=name)


def initialize_all_tables(name: str = "init_all_tables") -> Operation:
    """TF1's deprecated name of tables_initializer."""
    return tables_initializer(name)


class StaticVocabularyTable:
    """TF's StaticVocabularyTable: ids from a table filled by `initializer` (int64 values),
    and keys missing from it hashed (Fingerprint64) into `num_oov_buckets` ids after it."""

    def __init__(
        self,
        initializer: TableInitializerBase | None,
        num_oov_buckets: int,
        lookup_key_dtype: Any = None,
        name: Any = None,
    ) -> None:
        if num_oov_buckets <= 0:
            raise ValueError("oov_buckets must be > 0.")
        if name:
            name = name.rstrip("/")
        self._table: HashTable | None = None
        if initializer:
            if not isinstance(initializer, TableInitializerBase):
                raise TypeError(f"initializer must be a TableInitializerBase, got {initializer}")
            if initializer.value_dtype != dtypes.int64:
                raise TypeError(
                    f"Invalid value dtype, expected {dtypes.int64!r} but got "
                    f"{initializer.value_dtype!r}."
                )
            if lookup_key_dtype is None:
                lookup_key_dtype = initializer.key_dtype
            self._table = HashTable(initializer, default_value=-1)
            name = name or self._table._name.rstrip("/")
        else:
            lookup_key_dtype = dtypes.string
            name = name or "hash_bucket"
        key_dtype = dtypes.as_dtype(lookup_key_dtype)
        if not key_dtype.is_integer and key_dtype != dtypes.string:
            raise TypeError(f"Invalid key_dtype, expected integer or string, got {key_dtype!r}.")
        self._key_dtype = key_dtype
        self._num_oov_buckets = num_oov_buckets
        self._name = name.split("/")[-1]

    @property
    def name(self) -> str:
        return self._name

    @property
    def key_dtype(self) -> dtypes.DType:
        return self._key_dtype

    @property
    def value_dtype(self) -> dtypes.DType:
        return dtypes.int64

    @property
    def resource_handle(self) -> Tensor | None:
        return self._table.resource_handle if self._table is not None else None

    def size(self, name: Any = None) -> Tensor:
        with name_scope(name, f"{self._name}_Size"):
            if self._table is None:
                return convert_to_tensor(self._num_oov_buckets, dtype=dtypes.int64)
            return math_ops.add(self._table.size(), self._num_oov_buckets)

    def lookup(self, keys: Any, name: Any = None) -> Any:
        from tfcluster.framework.sparse_tensor import SparseTensor

        values = keys.values if isinstance(keys, SparseTensor) else convert_to_tensor(keys)
        if values.dtype.base_dtype != self._key_dtype:
            raise TypeError(
                f"Signature mismatch. Keys must be dtype {self._key_dtype!r}, got "
                f"{values.dtype.base_dtype!r}."
            )
        if self._table is not None and self._table.key_dtype.base_dtype == dtypes.int64:
            values = math_ops.cast(values, dtypes.int64)
        with name_scope(name, f"{self._name}_Lookup"):
            as_str = values if values.dtype == dtypes.string else string_ops.as_string(values)
            buckets = string_ops.string_to_hash_bucket_fast(
                as_str, self._num_oov_buckets, name="hash_bucket"
            )
            if self._table is not None:
                ids = self._table.lookup(values)
                buckets = math_ops.add(buckets, self._table.size())
                known = math_ops.greater_equal(ids, convert_to_tensor(0, dtype=dtypes.int64))
                ids = array_ops.where_v2(known, ids, buckets)  # TF 1.15 makes SelectV2 here
            else:
                ids = buckets
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, ids, keys.dense_shape)
        return ids
