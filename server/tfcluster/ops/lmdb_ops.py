"""tf.LMDBReader: a queue reader of LMDB databases (kernel: kernels/lmdb_files.py)."""

from __future__ import annotations

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.ops.reader_ops import ReaderBase, _reader_op

# TF's LMDBReader hands out a string ref; tfcluster's readers are resources, read by the V2
# reader ops like the others.
op_def_registry.register("LMDBReader", op_def_registry.fixed((dtypes.resource, [])), stateful=True)


class LMDBReader(ReaderBase):
    """A Reader that outputs the records (key, value) of LMDB databases, in key order."""

    def __init__(self, name: str | None = None, options: object = None) -> None:
        super().__init__(_reader_op("LMDBReader", {}, name))


__all__ = ["LMDBReader"]
