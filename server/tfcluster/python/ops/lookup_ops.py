"""tensorflow.python.ops.lookup_ops (`lookup_ops.index_table_from_file(vocab_file,
default_value=0)` and `lookup_ops.index_to_string_table_from_file(...)`, as sequence models
build their vocabularies): tf.lookup's tables and initializers, the very classes, the index
tables, and the index-to-string tables built from them."""

from __future__ import annotations

import types
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import convert_to_tensor, name_scope
from tfcluster.lib.lookup.dense_hash_table import DenseHashTable
from tfcluster.ops import array_ops, math_ops
from tfcluster.ops.lookup_ops import HashTable as StaticHashTableV1
from tfcluster.ops.lookup_ops import (
    IdTable,
    KeyValueTensorInitializer,
    StaticVocabularyTable,
    TableInitializerBase,
    TextFileIndex,
    TextFileInitializer,
    _check_table_dtypes,
    index_table_from_file,
    index_table_from_tensor,
)
from tfcluster.python._private_module import module_getattr
from tfcluster.python.ops._gen_ops import add_wrappers

StaticVocabularyTableV1 = StaticVocabularyTable
IdTableWithHashBuckets = IdTable


def _top_level(name: str) -> Any:
    """tf.<name> as the program reads it (deprecation included)."""
    import tfcluster

    return types.ModuleType.__getattribute__(tfcluster, "__dict__")[name]


initialize_all_tables = _top_level("initialize_all_tables")
tables_initializer = _top_level("tables_initializer")


class HashTable(StaticHashTableV1):
    """TF1's HashTable (tf.contrib.lookup's): a StaticHashTableV1 by its older name."""


class TextFileStringTableInitializer(TextFileInitializer):
    """An initializer of an id-to-string table from a text file: by default each line's
    number is its key and the whole line its value."""

    def __init__(
        self,
        filename: Any,
        key_column_index: int = TextFileIndex.LINE_NUMBER,
        value_column_index: int = TextFileIndex.WHOLE_LINE,
        vocab_size: int | None = None,
        delimiter: str = "\t",
        name: str = "text_file_string_table_init",
    ) -> None:
        super().__init__(
            filename,
            dtypes.int64,
            key_column_index,
            dtypes.string,
            value_column_index,
            vocab_size=vocab_size,
            delimiter=delimiter,
            name=name,
        )


class TextFileIdTableInitializer(TextFileInitializer):
    """An initializer of a string-to-id table from a text file: by default each whole line is
    a key and its line number the value."""

    def __init__(
        self,
        filename: Any,
        key_column_index: int = TextFileIndex.WHOLE_LINE,
        value_column_index: int = TextFileIndex.LINE_NUMBER,
        vocab_size: int | None = None,
        delimiter: str = "\t",
        name: str = "text_file_id_table_init",
        key_dtype: Any = dtypes.string,
    ) -> None:
        super().__init__(
            filename,
            key_dtype,
            key_column_index,
            dtypes.int64,
            value_column_index,
            vocab_size=vocab_size,
            delimiter=delimiter,
            name=name,
        )


def index_to_string_table_from_file(
    vocabulary_file: Any,
    vocab_size: int | None = None,
    default_value: Any = "UNK",
    name: Any = None,
    key_column_index: int = TextFileIndex.LINE_NUMBER,
    value_column_index: int = TextFileIndex.WHOLE_LINE,
    delimiter: str = "\t",
) -> StaticHashTableV1:
    """A table from int64 indices to the lines of a vocabulary file (default_value for an
    index out of it)."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(f"vocab_size must be greater than 0, got {vocab_size}.")
    with name_scope(name, "index_to_string"):
        init = TextFileStringTableInitializer(
            vocabulary_file,
            vocab_size=vocab_size,
            name="table_init",
            key_column_index=key_column_index,
            value_column_index=value_column_index,
            delimiter=delimiter,
        )
        return StaticHashTableV1(init, default_value)


def index_to_string_table_from_tensor(
    vocabulary_list: Any, default_value: Any = "UNK", name: Any = None
) -> StaticHashTableV1:
    """A table from int64 indices to the strings of a 1-D vocabulary tensor."""
    if vocabulary_list is None:
        raise ValueError("vocabulary_list must be specified.")
    with name_scope(name, "index_to_string"):
        vocabulary_list = convert_to_tensor(vocabulary_list, dtypes.string)
        num_elements = array_ops.size(vocabulary_list)
        keys = math_ops.cast(math_ops.range(num_elements), dtypes.int64)
        init = KeyValueTensorInitializer(
            keys, vocabulary_list, dtypes.int64, dtypes.string, name="table_init"
        )
        return StaticHashTableV1(init, default_value)


# gen_lookup_ops' wrappers (lookup_table_find_v2, ...), which TF's module re-exports.
add_wrappers(__name__)

__getattr__ = module_getattr("python.ops.lookup_ops")

__all__ = [
    "DenseHashTable",
    "HashTable",
    "IdTableWithHashBuckets",
    "KeyValueTensorInitializer",
    "StaticHashTableV1",
    "StaticVocabularyTable",
    "StaticVocabularyTableV1",
    "TableInitializerBase",
    "TextFileIdTableInitializer",
    "TextFileIndex",
    "TextFileInitializer",
    "TextFileStringTableInitializer",
    "_check_table_dtypes",
    "index_table_from_file",
    "index_table_from_tensor",
    "index_to_string_table_from_file",
    "index_to_string_table_from_tensor",
    "initialize_all_tables",
    "tables_initializer",
]
