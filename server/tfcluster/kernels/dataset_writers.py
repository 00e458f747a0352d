"""DatasetToTFRecord: writes every element of a dataset of scalar strings as one record of a
TFRecord file (plain, ZLIB or GZIP), in one step, as TF's kernel does."""

from __future__ import annotations

from typing import Any

from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.common import scalar_value
from tfcluster.kernels.dataset_ordering import _input
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.lib.io.tfrecord import RecordWriter


def _text(value: Any) -> str:
    raw = scalar_value(value)[()]
    return raw.decode() if isinstance(raw, bytes) else str(raw)


@kernel("DatasetToTFRecord", devices=CPU_ONLY)
def dataset_to_tf_record(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _input(ins[0], node.name)
        filename = _text(ins[1])
        compression = _text(ins[2])
        writer = RecordWriter(filename, compression)
        pipeline = base.Pipeline(ctx.resources, node.device)
        it = data.iterate(pipeline)
        try:
            with base.StepScope(ctx):
                while True:
                    ctx.time_left()
                    item = it.next()
                    if item is None:
                        break
                    record = item[0]
                    writer.write(record[()] if hasattr(record, "shape") else record)
        finally:
            it.close()
            pipeline.close()
            writer.close()
        return ()

    return compute
