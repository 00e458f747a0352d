"""Readers as graph ops (the readers of TF1's io_ops): TFRecordReader, TextLineReader,
FixedLengthRecordReader, WholeFileReader, IdentityReader, and tf.matching_files.

A reader is a resource on its task, like a queue: `reader.read(filename_queue)` takes file
names from the queue as it needs them and yields one (key, value) record per step. The ops
that use a reader take its handle (and the queue's) as reference inputs, so they run where
both live.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op

READER_OPS = (
    "TFRecordReaderV2",
    "TextLineReaderV2",
    "FixedLengthRecordReaderV2",
    "WholeFileReaderV2",
    "IdentityReaderV2",
)
_STRING = (dtypes.string, TensorShape([]))
_STRINGS = (dtypes.string, TensorShape([None]))
_INT64 = (dtypes.int64, TensorShape([]))

# The readers' first versions hand out a mutable string handle (container, name) instead of a
# resource; their users are the V2 ops without the suffix, with the same kernels.
LEGACY_READER_OPS = tuple(op.removesuffix("V2") for op in READER_OPS)
_REF_HANDLE = (dtypes.string._as_ref, TensorShape([2]))

for _op in READER_OPS:
    op_def_registry.register(_op, op_def_registry.fixed((dtypes.resource, [])), stateful=True)
for _op in LEGACY_READER_OPS:
    op_def_registry.register(_op, op_def_registry.fixed(_REF_HANDLE), stateful=True)
_READER_USERS: dict[str, tuple[Any, Sequence[int]]] = {
    "ReaderReadV2": (op_def_registry.fixed(_STRING, _STRING), (0, 1)),
    "ReaderReadUpToV2": (op_def_registry.fixed(_STRINGS, _STRINGS), (0, 1)),
    "ReaderNumRecordsProducedV2": (op_def_registry.fixed(_INT64), (0,)),
    "ReaderNumWorkUnitsCompletedV2": (op_def_registry.fixed(_INT64), (0,)),
    "ReaderSerializeStateV2": (op_def_registry.fixed(_STRING), (0,)),
    "ReaderRestoreStateV2": (op_def_registry.no_outputs, (0,)),
    "ReaderResetV2": (op_def_registry.no_outputs, (0,)),
}
for _op, (_infer, _refs) in _READER_USERS.items():
    # The reader (and the queue it reads from) are reference inputs: the op runs where they are.
    op_def_registry.register(_op, _infer, ref_inputs=_refs, stateful=True)
    op_def_registry.register(_op.removesuffix("V2"), _infer, ref_inputs=_refs, stateful=True)


def _matching_files_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    if inputs[0].shape.ndims is not None and inputs[0].shape.ndims > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {inputs[0].shape.ndims}")
    return [_STRINGS]


op_def_registry.register("MatchingFiles", _matching_files_infer)
op_def_registry.register("ReadFile", op_def_registry.fixed(_STRING))
op_def_registry.register("WriteFile", op_def_registry.no_outputs, stateful=True)
# A batch of records from files (kernels/record_input.py); TF gives it no static shape.
op_def_registry.register("RecordInput", op_def_registry.fixed((dtypes.string, None)), stateful=True)
# The op types this module adds (gradients/reader_grad.py lists those with no gradient).
OP_TYPES = (
    *READER_OPS,
    *LEGACY_READER_OPS,
    *_READER_USERS,
    *(op.removesuffix("V2") for op in _READER_USERS),
    "MatchingFiles",
    "ReadFile",
    "WriteFile",
    "RecordInput",
)


_COMPRESSION = {0: "", 1: "ZLIB", 2: "GZIP"}  # TFRecordCompressionType's values


def _compression_type(options: Any) -> str:
    """'', 'ZLIB' or 'GZIP' from a tf.io.TFRecordOptions (its own rule), or from what that
    takes: a TFRecordCompressionType or a string."""
    if not options:
        return ""
    convert = getattr(type(options), "get_compression_type_string", None)
    if convert is not None:
        return str(convert(options))
    if isinstance(options, int) and options in _COMPRESSION:
        return _COMPRESSION[options]
    if options in _COMPRESSION.values():
        return str(options)
    raise ValueError(f'Not a valid compression_type: "{options}"')


def _reader_op(op_type: str, attrs: dict[str, Any], name: str | None) -> Tensor:
    attrs = {"container": "", "shared_name": "", **attrs}
    return make_op(op_type, [], attrs, name=name or op_type).outputs[0]


def _queue_ref(queue: Any) -> Tensor:
    return queue if isinstance(queue, Tensor) else queue.queue_ref


class ReaderBase:
    """A reader: it takes units of work (file names) from a queue and produces records."""

    def __init__(self, reader_ref: Tensor, supports_serialize: bool = False) -> None:
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @property
    def reader_ref(self) -> Tensor:
        return self._reader_ref

    @property
    def supports_serialize(self) -> bool:
        return self._supports_serialize

    def _op(self, op_type: str, extra: Sequence[Tensor], name: str | None) -> Operation:
        return make_op(op_type, [self._reader_ref, *extra], {}, name=name or op_type)

    def read(self, queue: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
        """The next record (key, value); a new file is taken from `queue` when one ends."""
        op = self._op("ReaderReadV2", [_queue_ref(queue)], name)
        return op.outputs[0], op.outputs[1]

    def read_up_to(
        self, queue: Any, num_records: Any, name: str | None = None
    ) -> tuple[Tensor, Tensor]:
        """Up to num_records records (keys, values); fewer when a file ends."""
        with name_scope(name or "ReaderReadUpToV2") as scope:
            n = convert_to_tensor(num_records, dtype=dtypes.int64, name="num_records")
            op = make_op("ReaderReadUpToV2", [self._reader_ref, _queue_ref(queue), n], {}, scope)
        return op.outputs[0], op.outputs[1]

    def num_records_produced(self, name: str | None = None) -> Tensor:
        return self._op("ReaderNumRecordsProducedV2", [], name).outputs[0]

    def num_work_units_completed(self, name: str | None = None) -> Tensor:
        return self._op("ReaderNumWorkUnitsCompletedV2", [], name).outputs[0]

    def serialize_state(self, name: str | None = None) -> Tensor:
        return self._op("ReaderSerializeStateV2", [], name).outputs[0]

    def restore_state(self, state: Any, name: str | None = None) -> Operation:
        with name_scope(name or "ReaderRestoreStateV2") as scope:
            s = convert_to_tensor(state, dtype=dtypes.string, name="state")
            return make_op("ReaderRestoreStateV2", [self._reader_ref, s], {}, scope)

    def reset(self, name: str | None = None) -> Operation:
        return self._op("ReaderResetV2", [], name)


class WholeFileReader(ReaderBase):
    """Each file is one record: its name as the key, its contents as the value."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__(_reader_op("WholeFileReaderV2", {}, name), supports_serialize=True)


class TextLineReader(ReaderBase):
    """The lines of text files (newline and a trailing carriage return removed); keys are
    "file:line number", counting the skipped header lines."""

    def __init__(self, skip_header_lines: int | None = None, name: str | None = None) -> None:
        attrs = {"skip_header_lines": int(skip_header_lines or 0)}
        super().__init__(_reader_op("TextLineReaderV2", attrs, name))


class FixedLengthRecordReader(ReaderBase):
    """Records of record_bytes bytes, after header_bytes and before footer_bytes; with
    hop_bytes each record starts that many bytes after the previous one."""

    def __init__(
        self,
        record_bytes: int,
        header_bytes: int | None = None,
        footer_bytes: int | None = None,
        hop_bytes: int | None = None,
        name: str | None = None,
        encoding: str | None = None,
    ) -> None:
        attrs = {
            "header_bytes": int(header_bytes or 0),
            "record_bytes": int(record_bytes),
            "footer_bytes": int(footer_bytes or 0),
            "hop_bytes": int(hop_bytes or 0),
            "encoding": encoding or "",
        }
        super().__init__(_reader_op("FixedLengthRecordReaderV2", attrs, name))


class TFRecordReader(ReaderBase):
    """The records of TFRecord files (compressed as `options` say); keys are "file:offset"."""

    def __init__(self, name: str | None = None, options: Any = None) -> None:
        kind = _compression_type(options)
        super().__init__(_reader_op("TFRecordReaderV2", {"compression_type": kind}, name))


class IdentityReader(ReaderBase):
    """Each unit of work is one record: the work itself, as key and value."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__(_reader_op("IdentityReaderV2", {}, name), supports_serialize=True)


def matching_files(pattern: Any, name: str | None = None) -> Tensor:
    """The files matching a glob pattern (or a vector of them), sorted."""
    with name_scope(name or "MatchingFiles") as scope:
        p = convert_to_tensor(pattern, dtype=dtypes.string, name="pattern")
        return make_op("MatchingFiles", [p], {}, scope).outputs[0]


def read_file(filename: Any, name: str | None = None) -> Tensor:
    """The contents of a file, as a string scalar."""
    with name_scope(name or "ReadFile") as scope:
        f = convert_to_tensor(filename, dtype=dtypes.string, name="filename")
        return make_op("ReadFile", [f], {}, scope).outputs[0]


def write_file(filename: Any, contents: Any, name: str | None = None) -> Operation:
    """Writes contents (a string scalar) to a file, making its directory if needed."""
    with name_scope(name or "WriteFile") as scope:
        f = convert_to_tensor(filename, dtype=dtypes.string, name="filename")
        c = convert_to_tensor(contents, dtype=dtypes.string, name="contents")
        return make_op("WriteFile", [f, c], {}, scope)


__all__ = [
    "FixedLengthRecordReader",
    "IdentityReader",
    "ReaderBase",
    "TFRecordReader",
    "TextLineReader",
    "WholeFileReader",
    "matching_files",
    "read_file",
    "write_file",
]
