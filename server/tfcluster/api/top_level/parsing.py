"""`tf.*` names for reading data: Example parsing, decoding, SparseTensor."""

from tfcluster.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tfcluster.ops.parsing_ops import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    SparseFeature,
    VarLenFeature,
    decode_compressed,
    decode_csv,
    decode_raw,
    parse_example,
    parse_single_example,
    parse_single_sequence_example,
    parse_tensor,
    serialize_tensor,
    string_to_number,
)

__all__ = [
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "SparseFeature",
    "SparseTensor",
    "SparseTensorValue",
    "VarLenFeature",
    "decode_compressed",
    "decode_csv",
    "decode_raw",
    "parse_example",
    "parse_single_example",
    "parse_single_sequence_example",
    "parse_tensor",
    "serialize_tensor",
    "string_to_number",
]
