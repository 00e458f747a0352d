"""Runtime error messages told in terms of the program: TF 1.15's error interpolation.

A task names a failing node as `{{node <name>}}` (TensorFlow's wire form, which TF's own
clients expand too). The client that built the graph replaces each tag with
`node <name> (defined at <file>:<line>) `, the line of the user's program that made the op,
and hands the op to the error so that str(error) ends with the op's creation stack
("Original stack trace for 'x':").

TF's interpolation also lists the lines that made the node's inputs when they differ from the
node's; TF 1.15's pip package never prints that list (it takes its own ops.py for the line of
every op, so the lines never differ), and neither does this.
"""

from __future__ import annotations

import os
import re
import traceback
from collections.abc import Sequence
from typing import Any

_NAME = r"[A-Za-z0-9_.][A-Za-z0-9_.\-/]*?"
_TAG = re.compile(r"{{(" + _NAME + r") (" + _NAME + r")}}")
# TF's BaseSession._NODEDEF_NAME_RE: the node a runtime error is about.
_NODEDEF_NAME = re.compile(r"\[\[(Node: )?(\{\{node )?([^\} ]*)(\}\})?\s*=*")

_TFCLUSTER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Frames from these are the library's, not the program's (TF's _BAD_FILE_SUBSTRINGS, with
# this package in the place of tensorflow/python).
_LIBRARY_FILES = (
    _TFCLUSTER_DIR + os.sep,
    os.path.join("tensorflow", "python"),
    os.path.join("tensorflow_estimator", "python"),
    "<embedded",
)


def failing_op(message: str, graph: Any) -> Any:
    """The graph's op that a runtime error message names, or None."""
    match = _NODEDEF_NAME.search(message)
    return _op_or_none(match.group(3), graph) if match else None


def interpolate(message: str, graph: Any) -> str:
    """`message` with each {{node name}} tag told as the op's defining line, as TF 1.15."""
    pieces: list[str] = []
    tags: list[tuple[str, str]] = []
    end = 0
    for match in _TAG.finditer(message):
        pieces.append(message[end : match.start()])
        tags.append((match.group(1), match.group(2)))
        end = match.end()
    if not tags:
        return message
    tail = message[end:]
    ops = [_op_or_none(name, graph) for _, name in tags]
    prefix = _common_prefix([op for op in ops if op is not None])
    subs: list[str] = []
    for (kind, name), op in zip(tags, ops):
        if op is not None and kind == "node":
            subs.append(f"node {op.name}{_defined_at(op, prefix)} ")
        elif kind == "function_node":
            subs.append("")
        else:
            subs.append("{{" + kind + " " + name + "}}")
    return "".join(piece + sub for piece, sub in zip(pieces, subs)) + tail


def with_graph_context(error: Any, graph: Any) -> Any:
    """The same error class, its message interpolated against `graph` and carrying the op it
    names (TF's Session._do_call); `error` itself when it names no node of the graph."""
    message = error.message
    op = failing_op(message, graph)
    interpolated = interpolate(message, graph)
    if op is None and interpolated == message:
        return error
    node_def = op.node_def if op is not None else None
    return type(error)(node_def, op, interpolated)


def creation_stack(op: Any) -> str:
    """str(error)'s tail: the op's creation stack with whole file names, as TF 1.15's
    OpError.__str__ formats op.traceback (only the message's "defined at" drops the common
    prefix)."""
    return "".join(traceback.format_list(list(op.traceback)))


def _op_or_none(name: str, graph: Any) -> Any:
    try:
        return graph.get_operation_by_name(name)
    except (KeyError, ValueError):
        return None


def _common_prefix(ops: Sequence[Any]) -> str:
    files = {f[0] for op in ops for f in op.traceback if "<embedded" not in f[0]}
    # Character-wise, then cut at a separator: TF's traceback_files_common_prefix.
    return os.path.split(os.path.commonprefix(sorted(files)))[0]  # noqa: RUF071


def _defined_at(op: Any, prefix: str) -> str:
    frames = op.traceback
    if not frames:
        return ""
    frame = frames[0]
    for candidate in reversed(frames):
        if not any(part in candidate[0] for part in _LIBRARY_FILES):
            frame = candidate
            break
    filename = frame[0]
    if filename.startswith(prefix):
        filename = filename[len(prefix) :]
    return f" (defined at {filename}:{frame[1]})"
