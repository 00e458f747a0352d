"""tf.summary's smaller names as TF 1.15 graph mode has them: the SummaryDescription and
TaggedRunMetadata protos (TF's event and summary protos, in tfcluster.protos, like tf.Summary),
get_summary_description, all_v2_summary_ops and initialize."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format

from tfcluster.framework.graph import get_collection
from tfcluster.protos.event_pb2 import TaggedRunMetadata
from tfcluster.protos.summary_pb2 import SummaryDescription

# TF's collection of v2 (tf.contrib.summary) summary ops.
_SUMMARY_V2_COLLECTION = "_SUMMARY_V2"


def get_summary_description(node_def: Any) -> SummaryDescription:
    """The SummaryDescription stored as JSON in a TensorSummary node's `description` attr."""
    if node_def.op != "TensorSummary":
        raise ValueError(f"Can't get_summary_description on {node_def.op}")
    raw = node_def.attr["description"].s
    text = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
    description = SummaryDescription()
    json_format.Parse(text, description)
    return description


def all_v2_summary_ops() -> list[Any]:
    """The graph's v2 summary ops: tfcluster builds none (tf.contrib.summary is out of
    scope), so this is what TF 1.15 gives for a graph without them: an empty list."""
    return get_collection(_SUMMARY_V2_COLLECTION)


def initialize(graph: Any = None, session: Any = None) -> None:
    """TF 1.15 runs the default tf.contrib.summary writer's initializer here; tfcluster
    has no such writers, so this raises TF's error for a program that set none."""
    del graph, session
    raise RuntimeError("No default tf.contrib.summary.SummaryWriter found")


__all__ = [
    "SummaryDescription",
    "TaggedRunMetadata",
    "all_v2_summary_ops",
    "get_summary_description",
    "initialize",
]
