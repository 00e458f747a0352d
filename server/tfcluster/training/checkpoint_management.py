"""Checkpoint files on disk (TF's checkpoint_management): the `checkpoint` state file
(CheckpointState in text form), whether a checkpoint exists, mtimes, removal.

A V2 checkpoint with prefix P is P.index and P.data-?????-of-????? (P.meta beside it); its
index is written last, so a checkpoint exists exactly when its index does. A V1 checkpoint is
the files matching P itself.
"""

from __future__ import annotations

import logging
import os
import re
import uuid
from collections.abc import Iterable, Sequence

from google.protobuf import text_format

from tfcluster.framework import errors
from tfcluster.framework.file_patterns import matching_paths, raise_os_error
from tfcluster.framework.tensor_bundle.bundle import _write_atomically
from tfcluster.protos import saver_pb2
from tfcluster.protos.checkpoint_state_pb2 import CheckpointState

_log = logging.getLogger("tensorflow")
INDEX_SUFFIX = ".index"
DATA_SUFFIX = ".data-00000-of-00001"
META_SUFFIX = ".meta"
STATE_FILENAME = "checkpoint"
V1 = saver_pb2.SaverDef.V1
V2 = saver_pb2.SaverDef.V2


def atomic_write(path: str, data: bytes) -> None:
    """Writes `data` to `path` so readers see the old file or the whole new one, never half."""
    _write_atomically(path, data)


def _state_path(save_dir: str, latest_filename: str | None) -> str:
    return os.path.join(save_dir, latest_filename or STATE_FILENAME)


def _prefix_to_checkpoint_path(prefix: str, format_version: int) -> str:
    return prefix + INDEX_SUFFIX if format_version == V2 else prefix


def meta_graph_filename(checkpoint_filename: str, meta_graph_suffix: str = "meta") -> str:
    """model.ckpt-123 -> model.ckpt-123.meta (a V1 shard suffix -?????-of-N dropped)."""
    basename = re.sub(r"-[\d\?]+-of-\d+$", "", checkpoint_filename)
    return f"{basename}.{meta_graph_suffix}"


def generate_checkpoint_state_proto(
    save_dir: str,
    model_checkpoint_path: str,
    all_model_checkpoint_paths: Sequence[str] | None = None,
    all_model_checkpoint_timestamps: Sequence[float] | None = None,
    last_preserved_timestamp: float | None = None,
) -> CheckpointState:
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    if all_model_checkpoint_timestamps and len(all_model_checkpoint_timestamps) != len(paths):
        raise ValueError(
            f"Checkpoint timestamps, if provided, must match checkpoint paths (got paths {paths} "
            f"and timestamps {list(all_model_checkpoint_timestamps)})"
        )
    # Relative paths are made relative to a relative save_dir (as TF does).
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
    state = CheckpointState(
        model_checkpoint_path=model_checkpoint_path,
        all_model_checkpoint_paths=paths,
        all_model_checkpoint_timestamps=list(all_model_checkpoint_timestamps or []),
    )
    if last_preserved_timestamp is not None:
        state.last_preserved_timestamp = last_preserved_timestamp
    return state


def update_checkpoint_state(
    save_dir: str,
    model_checkpoint_path: str,
    all_model_checkpoint_paths: Sequence[str] | None = None,
    latest_filename: str | None = None,
    all_model_checkpoint_timestamps: Sequence[float] | None = None,
    last_preserved_timestamp: float | None = None,
    *,  # the Saver's option, beyond TF 1.15's public signature
    save_relative_paths: bool = False,
) -> None:
    """Writes the `checkpoint` file of save_dir (text CheckpointState), atomically."""
    paths = list(all_model_checkpoint_paths or [])
    if save_relative_paths:

        def rel(p: str) -> str:
            return os.path.relpath(p, save_dir) if os.path.isabs(p) else p

        model_checkpoint_path = rel(model_checkpoint_path)
        paths = [rel(p) for p in paths]
    state = generate_checkpoint_state_proto(
        save_dir,
        model_checkpoint_path,
        paths,
        all_model_checkpoint_timestamps,
        last_preserved_timestamp,
    )
    path = _state_path(save_dir, latest_filename)
    if path == state.model_checkpoint_path:
        raise RuntimeError(
            f"Save path '{model_checkpoint_path}' conflicts with path used for checkpoint "
            "state.  Please use a different save path."
        )
    if not os.path.isdir(os.path.dirname(path) or "."):
        # TF writes a temporary file beside the state file first: its name is in the error.
        raise errors.NotFoundError(
            None, None, f"{path}.tmp{uuid.uuid4().hex}; No such file or directory"
        )
    atomic_write(path, text_format.MessageToString(state).encode())


def get_checkpoint_state(
    checkpoint_dir: str, latest_filename: str | None = None
) -> CheckpointState | None:
    """The CheckpointState of checkpoint_dir (relative paths joined to it), or None."""
    path = _state_path(checkpoint_dir, latest_filename)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    state = CheckpointState()
    try:
        text_format.Merge(text, state)
    except text_format.ParseError:
        return None
    if not state.model_checkpoint_path:
        raise ValueError(f"Invalid checkpoint state loaded from {checkpoint_dir}")

    def absolute(p: str) -> str:
        return p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)

    state.model_checkpoint_path = absolute(state.model_checkpoint_path)
    paths = [absolute(p) for p in state.all_model_checkpoint_paths]
    del state.all_model_checkpoint_paths[:]
    state.all_model_checkpoint_paths.extend(paths)
    return state


def checkpoint_exists(checkpoint_prefix: str) -> bool:
    """Whether a V2 checkpoint (its index) or V1 checkpoint files exist at the prefix: TF's
    file-matching of both, so a prefix in a missing directory is NotFoundError as in TF 1.15
    (Saver.restore of such a path raises it before its ValueError), and the prefix is a
    pattern ("logs\\model" matches "logsmodel", never itself)."""
    v2_index = _prefix_to_checkpoint_path(checkpoint_prefix, saver_pb2.SaverDef.V2)
    return bool(matching_paths(v2_index)) or bool(matching_paths(checkpoint_prefix))


def latest_checkpoint(checkpoint_dir: str, latest_filename: str | None = None) -> str | None:
    """The newest checkpoint named in checkpoint_dir's state file, if its files match."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path:
        prefix = state.model_checkpoint_path
        if checkpoint_exists(prefix):
            return prefix
        _log.error("Couldn't match files for checkpoint %s", prefix)
    return None


def get_checkpoint_mtimes(checkpoint_prefixes: Iterable[str]) -> list[float]:
    """The mtimes of the checkpoints that exist (V2 index, else V1 files), in whole seconds
    as TF's posix file system stats them (mtime_nsec / 1e9)."""
    out = []
    for prefix in checkpoint_prefixes:
        for pattern in (_prefix_to_checkpoint_path(prefix, V2), prefix):
            found = matching_paths(pattern)
            if found:
                out.append(int(os.stat(found[0]).st_mtime) * 1_000_000_000 / 1e9)
                break
    return out


def remove_checkpoint(
    checkpoint_prefix: str, checkpoint_format_version: int = V2, meta_graph_suffix: str = "meta"
) -> None:
    """Deletes the files of a checkpoint (and its .meta): each name is a TF file pattern, as
    in TF 1.15 (a prefix with a backslash or a bracket in it may match nothing)."""
    patterns = [meta_graph_filename(checkpoint_prefix, meta_graph_suffix)]
    if checkpoint_format_version == V2:
        patterns += [
            checkpoint_prefix + INDEX_SUFFIX,
            checkpoint_prefix + ".data-?????-of-?????",
        ]
    else:
        patterns.append(checkpoint_prefix)
    for pattern in patterns:
        for path in matching_paths(pattern):
            try:
                os.remove(path)
            except FileNotFoundError:
                continue
            except OSError as e:
                raise_os_error(e, path)


__all__ = [
    "CheckpointState",
    "checkpoint_exists",
    "generate_checkpoint_state_proto",
    "get_checkpoint_mtimes",
    "get_checkpoint_state",
    "latest_checkpoint",
    "meta_graph_filename",
    "remove_checkpoint",
    "update_checkpoint_state",
]
