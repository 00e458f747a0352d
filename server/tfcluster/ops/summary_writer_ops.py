"""TF's summary writer ops (kernels/summary_writers.py): a SummaryWriter resource whose
event file CreateSummaryFileWriter opens (or whose SQLite database CreateSummaryDbWriter
opens, kernels/summary_db.py); Write*Summary / WriteSummary / WriteGraphSummary /
WriteRawProtoSummary / ImportEvent append events to it. Every op on a writer takes its
handle as a reference input, so it runs where the writer lives."""

from __future__ import annotations

from tfcluster.framework import dtypes, op_def_registry

op_def_registry.register(
    "SummaryWriter", op_def_registry.fixed((dtypes.resource, [])), stateful=True
)
_USERS = (
    "CreateSummaryFileWriter",
    "CreateSummaryDbWriter",
    "WriteScalarSummary",
    "WriteHistogramSummary",
    "WriteImageSummary",
    "WriteAudioSummary",
    "WriteSummary",
    "WriteRawProtoSummary",
    "WriteGraphSummary",
    "ImportEvent",
    "FlushSummaryWriter",
    "CloseSummaryWriter",
)
for _op in _USERS:
    op_def_registry.register(_op, op_def_registry.no_outputs, ref_inputs=[0], stateful=True)
# The op types this module adds (TF 1.15 registers no gradient for them: tf.gradients
# raises LookupError when a gradient reaches one, as TF).
OP_TYPES = ("SummaryWriter", *_USERS)

__all__: list[str] = []
