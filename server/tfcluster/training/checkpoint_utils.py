"""Reading checkpoints outside a Saver (TF's checkpoint_utils and CheckpointReader):
tf.train.NewCheckpointReader, load_checkpoint, load_variable, list_variables,
init_from_checkpoint and checkpoints_iterator."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import device, get_default_graph
from tfcluster.framework.tensor_bundle import bundle, open_checkpoint
from tfcluster.training.checkpoint_management import latest_checkpoint


class CheckpointReader:
    """One checkpoint's tensors by name (pywrap_tensorflow.CheckpointReader)."""

    def __init__(self, filepattern: str) -> None:
        self._reader = open_checkpoint(os.fspath(filepattern))

    def has_tensor(self, name: str) -> bool:
        return self._reader.has_tensor(name)

    def get_tensor(self, name: str) -> Any:
        value = self._reader.get_tensor(name)
        # TF hands back numpy scalars for 0-d tensors (bytes for a string scalar).
        return value[()] if value.ndim == 0 else value

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        return {k: self._reader.shape(k) for k in self._reader.tensor_keys()}

    def get_variable_to_dtype_map(self) -> dict[str, dtypes.DType]:
        return {k: dtypes.as_dtype(self._reader.dtype_enum(k)) for k in self._reader.tensor_keys()}

    def debug_string(self) -> bytes:
        out = b""
        for key, dtype, shape in self._reader.stored_entries():
            dims = ",".join(str(d) for d in shape)
            out += key + f" ({bundle.dtype_name(dtype)}) [{dims}]\n".encode()
        return out


def NewCheckpointReader(filepattern: str) -> CheckpointReader:
    return CheckpointReader(filepattern)


def _checkpoint_filename(ckpt_dir_or_file: str) -> str | None:
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        return latest_checkpoint(path)
    return path


def load_checkpoint(ckpt_dir_or_file: str) -> CheckpointReader:
    """A reader of the checkpoint file, or of a directory's latest checkpoint."""
    filename = _checkpoint_filename(ckpt_dir_or_file)
    if filename is None:
        raise ValueError(
            f"Couldn't find 'checkpoint' file or checkpoints in given directory {ckpt_dir_or_file}"
        )
    return NewCheckpointReader(filename)


def load_variable(ckpt_dir_or_file: str, name: str) -> Any:
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def list_variables(ckpt_dir_or_file: str) -> list[tuple[str, list[int]]]:
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


def checkpoints_iterator(
    checkpoint_dir: str,
    min_interval_secs: float = 0,
    timeout: float | None = None,
    timeout_fn: Callable[[], bool] | None = None,
) -> Iterator[str]:
    """Yields each new latest checkpoint of checkpoint_dir, waiting for the next one."""
    last: str | None = None
    while True:
        deadline = None if timeout is None else time.time() + timeout
        new = None
        while True:
            found = latest_checkpoint(checkpoint_dir)
            if found is not None and found != last:
                new = found
                break
            if deadline is not None and time.time() + 1 > deadline:
                break
            time.sleep(1)
        if new is None:
            if not timeout_fn or timeout_fn():
                return
            continue
        start = time.time()
        last = new
        yield new
        wait = start + min_interval_secs - time.time()
        if wait > 0:
            time.sleep(wait)


# ---- init_from_checkpoint --------------------------------------------------------------------
def _is_variable(x: Any) -> bool:
    return hasattr(x, "_ref") and callable(x._ref) and hasattr(x, "initializer")


_VARSTORE_KEY = ("__variable_store",)  # where tf.get_variable keeps its store (as in TF)


def _variable_store() -> dict[str, Any]:
    """tf.get_variable's variables by name (the graph's variable store, what TF looks names
    up in); in a graph without one, the global variables by op name."""
    graph = get_default_graph()
    stores = graph.get_collection(_VARSTORE_KEY)  # type: ignore[arg-type]
    if stores:
        found: dict[str, Any] = {}
        for store in stores:
            found.update(getattr(store, "_vars", {}))
        return found
    from tfcluster.ops.variables import global_variables

    return {v.op.name: v for v in global_variables()}


def _partitioned(name: str, store: Mapping[str, Any]) -> list[Any] | None:
    if name + "/part_0" in store:
        parts = []
        i = 0
        while f"{name}/part_{i}" in store:
            parts.append(store[f"{name}/part_{i}"])
            i += 1
        return parts
    return None


def _set_checkpoint_initializer(var: Any, ckpt_file: str, tensor_name: str, spec: str) -> None:
    """The variable's initializer becomes an assign from RestoreV2 of the checkpoint (run on
    the variable's task, as in TF)."""
    from tfcluster.ops import io_ops, state_ops
    from tfcluster.ops.variables import is_resource_variable

    base = var.dtype.base_dtype
    with device(var.device), device("/cpu:0"):
        value = io_ops.restore_v2(
            ckpt_file, [tensor_name], [spec], [base], name="checkpoint_initializer"
        )[0]
    # A MirroredVariable restores every copy from the one RestoreV2 (TF's mirrored saveable).
    copies = getattr(var, "_values", None) or [var]
    for copy in copies:
        if is_resource_variable(copy):
            # A resource variable (a canned DNN's layers) restores with AssignVariableOp, as
            # TF's ResourceVariableSaveable does.
            with device(copy.device):
                init = copy.assign(value, read_value=False)
        else:
            ref = copy._ref()
            init = state_ops.assign(ref, value, validate_shape=ref.shape.is_fully_defined()).op
        copy._initializer_op = init
        copy._initial_value = value
    value.set_shape(var.shape)


def _set_initializer(var_or_list: Any, ckpt_file: str, tensor_name: str) -> None:
    if isinstance(var_or_list, (list, tuple)):
        full = None
        for v in var_or_list:
            info = v._save_slice_info
            if full is None:
                full = info.full_name
            elif full != info.full_name:
                raise ValueError(
                    f"Slices must all be from the same tensor: {full} != {info.full_name}"
                )
            _set_checkpoint_initializer(v, ckpt_file, tensor_name, info.spec)
    else:
        _set_checkpoint_initializer(var_or_list, ckpt_file, tensor_name, "")


def init_from_checkpoint(ckpt_dir_or_file: str, assignment_map: Mapping[str, Any]) -> None:
    """Makes the initializers of the mapped variables load them from the checkpoint:
    {'ckpt/name': var or 'var/name'}, or scope to scope {'ckpt_scope/': 'scope/'}."""
    ckpt_file = _checkpoint_filename(ckpt_dir_or_file)
    reader = load_checkpoint(ckpt_dir_or_file)
    assert ckpt_file is not None
    shapes = reader.get_variable_to_shape_map()
    store = _variable_store()
    for tensor_name, current in sorted(assignment_map.items(), key=lambda kv: kv[0]):
        var: Any = None
        if _is_variable(current) or (
            isinstance(current, list) and all(_is_variable(v) for v in current)
        ):
            var = current
        else:
            var = store.get(current)
            if var is None:
                var = _partitioned(current, store)
        if var is not None:
            if tensor_name not in shapes:
                raise ValueError(
                    f"Tensor {tensor_name} is not found in {ckpt_dir_or_file} checkpoint {shapes}"
                )
            if _is_variable(var) and not var.shape.is_compatible_with(shapes[tensor_name]):
                raise ValueError(
                    f"Shape of variable {var.name} ({var.shape}) doesn't match with shape of "
                    f"tensor {tensor_name} ({shapes[tensor_name]}) from checkpoint reader."
                )
            _set_initializer(var, ckpt_file, tensor_name)
            continue
        scopes = current[: current.rindex("/")] if "/" in current else ""
        if not tensor_name.endswith("/"):
            raise ValueError(
                f"Assignment map with scope only name {scopes} should map to scope only "
                f"{tensor_name}. Should be 'scope/': 'other_scope/'."
            )
        scope_variables = set()
        for var_name in store:
            if not scopes or var_name.startswith(scopes + "/"):
                if "/part_" in var_name:
                    var_name = var_name[: var_name.index("/part_")]
                scope_variables.add(var_name)
        for var_name in sorted(scope_variables):
            full = var_name[len(scopes) :]
            if current != "/":
                full = full[1:]
            if tensor_name != "/":
                full = tensor_name + full
            full = full.removesuffix("/")
            if full not in shapes:
                raise ValueError(
                    f"Tensor {full} ({var_name[len(scopes) + 1 :]} in {tensor_name}) is not found "
                    f"in {ckpt_dir_or_file} checkpoint"
                )
            found = store.get(var_name)
            if found is None:
                found = _partitioned(var_name, store)
            _set_initializer(found, ckpt_file, full)


__all__ = [
    "CheckpointReader",
    "NewCheckpointReader",
    "checkpoints_iterator",
    "init_from_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
]
