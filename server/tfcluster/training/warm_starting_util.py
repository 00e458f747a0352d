"""tf.train.warm_start and tf.train.VocabInfo: variables of a new model initialised from a
checkpoint of an older one, by name (renamed where asked), shard by shard for partitioned
variables, and row by row (or column by column) through old and new vocabulary files for
embeddings and class-vocabulary layers (TF's warm_starting_util and checkpoint_ops)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from tfcluster.framework import dtypes
from tfcluster.framework.graph import GraphKeys, Tensor, convert_to_tensor, get_collection
from tfcluster.ops import array_ops, checkpoint_ops, init_ops, math_ops, state_ops
from tfcluster.ops.variable_scope import _PartitionInfo
from tfcluster.ops.variables import PartitionedVariable
from tfcluster.training import checkpoint_utils
from tfcluster.training.saver import op_list_to_dict

_log = logging.getLogger("tensorflow")


class VocabInfo(NamedTuple):
    """How a vocabulary-backed variable maps from the checkpoint's vocabulary to the new
    one: rows (axis 0) or columns (axis 1) follow their words, new words and the
    num_oov_buckets OOV rows get backup_initializer's values (zeros when None)."""

    new_vocab: Any
    new_vocab_size: int
    num_oov_buckets: int
    old_vocab: Any
    old_vocab_size: int = -1
    backup_initializer: Any = None
    axis: int = 0


def _vocab_info_new(
    cls: type,
    new_vocab: Any,
    new_vocab_size: int,
    num_oov_buckets: int,
    old_vocab: Any,
    old_vocab_size: int = -1,
    backup_initializer: Any = None,
    axis: int = 0,
) -> VocabInfo:
    if axis != 0 and axis != 1:
        raise ValueError(
            f"The only supported values for the axis argument are 0 and 1.  Provided axis: {axis}"
        )
    return tuple.__new__(  # type: ignore[no-any-return]
        cls,
        (
            new_vocab,
            new_vocab_size,
            num_oov_buckets,
            old_vocab,
            old_vocab_size,
            backup_initializer,
            axis,
        ),
    )


# A NamedTuple class cannot define __new__ in its body; TF's VocabInfo checks axis there.
_vocab_info_new.__name__ = "__new__"
_vocab_info_new.__qualname__ = "VocabInfo.__new__"
VocabInfo.__new__ = _vocab_info_new  # type: ignore[assignment,method-assign]


def _is_variable(x: Any) -> bool:
    return checkpoint_utils._is_variable(x)


def _infer_var_name(var: list[Any]) -> str:
    """The checkpoint name of a variable, or of a partitioned variable's shards."""
    names = op_list_to_dict(var)
    if len(names) > 1:
        raise TypeError(
            f"`var` = {var} passed as arg violates the constraints.  name_to_var_dict = {names}"
        )
    return next(iter(names))


def _var_list(var: Any) -> list[Any]:
    if _is_variable(var):
        return [var]
    if isinstance(var, list) and all(_is_variable(v) for v in var):
        return var
    if isinstance(var, PartitionedVariable):
        return var._get_variable_list()
    raise TypeError(
        "var MUST be one of the following: a Variable, list of Variable or "
        f"PartitionedVariable, but is {type(var)}"
    )


def _get_var_info(var: Any, prev_tensor_name: str | None = None) -> tuple[str, Any]:
    if _is_variable(var):
        name = _infer_var_name([var])
    elif isinstance(var, list) and all(_is_variable(v) for v in var):
        name = _infer_var_name(var)
    elif isinstance(var, PartitionedVariable):
        name = _infer_var_name([var])
        var = var._get_variable_list()
    else:
        raise TypeError(
            "var MUST be one of the following: a Variable, list of Variable or "
            f"PartitionedVariable, but is {type(var)}"
        )
    return prev_tensor_name or name, var


# ---- vocabulary remapping (TF's checkpoint_ops._load_and_remap_matrix_initializer) ---------
def _load_and_remap_matrix(
    ckpt_path: str,
    old_tensor_name: str,
    new_row_vocab_offset: int,
    num_rows_to_load: int,
    new_col_vocab_size: int,
    initializer: Callable[..., Any],
    old_row_vocab_size: int,
    old_row_vocab_file: Any,
    new_row_vocab_file: Any,
    old_col_vocab_file: Any,
    new_col_vocab_file: Any,
    num_row_oov_buckets: int,
    num_col_oov_buckets: int,
) -> Tensor:
    remap_rows = bool(new_row_vocab_file and old_row_vocab_file)
    remap_cols = bool(new_col_vocab_file and old_col_vocab_file)
    num_rows_present: Any = num_rows_to_load
    if remap_rows:
        row_remapping, num_rows_present = checkpoint_ops.generate_vocab_remapping(
            new_row_vocab_file,
            old_row_vocab_file,
            new_vocab_offset=new_row_vocab_offset,
            num_new_vocab=num_rows_to_load,
            old_vocab_size=old_row_vocab_size,
        )
    else:
        row_remapping = math_ops.range(
            new_row_vocab_offset, new_row_vocab_offset + num_rows_to_load, dtype=dtypes.int64
        )
    col_remapping: Any = []
    num_cols_present: Any = new_col_vocab_size
    if remap_cols:
        col_remapping, num_cols_present = checkpoint_ops.generate_vocab_remapping(
            new_col_vocab_file,
            old_col_vocab_file,
            new_vocab_offset=0,
            num_new_vocab=new_col_vocab_size,
        )
    # The backup values of the cells not in the checkpoint, one column of them.
    missing = num_rows_to_load * new_col_vocab_size - num_rows_present * num_cols_present
    init_vals = initializer([missing, 1])
    result = checkpoint_ops.load_and_remap_matrix(
        ckpt_path,
        old_tensor_name,
        row_remapping,
        col_remapping,
        init_vals,
        num_rows=num_rows_to_load,
        num_cols=new_col_vocab_size,
    )
    if num_row_oov_buckets > 0:
        oov_rows = convert_to_tensor(initializer([num_row_oov_buckets, new_col_vocab_size]))
        result = array_ops.concat([result, oov_rows], 0)
    if num_col_oov_buckets > 0:
        oov_cols = convert_to_tensor(
            initializer([num_rows_to_load + num_row_oov_buckets, num_col_oov_buckets])
        )
        result = array_ops.concat([result, oov_cols], 1)
    return result


def _remap_initializer(
    ckpt_path: str,
    old_tensor_name: str,
    new_row_vocab_size: int,
    new_col_vocab_size: int,
    old_row_vocab_size: int,
    old_row_vocab_file: Any,
    new_row_vocab_file: Any,
    old_col_vocab_file: Any,
    new_col_vocab_file: Any,
    num_row_oov_buckets: int,
    num_col_oov_buckets: int,
    initializer: Any,
) -> Callable[..., Any]:
    if initializer is None:
        initializer = init_ops.zeros_initializer()
    if not callable(initializer):
        raise TypeError(
            f"initializer must be callable, instead of being {initializer} of type "
            f"{type(initializer)}."
        )
    if num_row_oov_buckets < 0:
        raise ValueError(f"num_row_oov_buckets must be >= 0, but received {num_row_oov_buckets}")
    if num_col_oov_buckets < 0:
        raise ValueError(f"num_col_oov_buckets must be >= 0, but received {num_col_oov_buckets}")

    def init(shape: list[int], dtype: Any = dtypes.float32, partition_info: Any = None) -> Any:
        if dtype != dtypes.float32:
            raise TypeError(f"Currently, only float32 is supported. Received dtype: {dtype}")
        if len(shape) != 2:
            raise ValueError(f"Expected 2-dim shape, but received: {shape}")
        if shape[0] <= 0:
            raise ValueError(f"Expected 1st dim of shape to be > 0, but received shape: {shape}")
        if shape[1] != new_col_vocab_size + num_col_oov_buckets:
            raise ValueError(
                f"Expected 2nd dim of shape to be new_col_vocab_size ({new_col_vocab_size}) + "
                f"num_col_oov_buckets ({num_col_oov_buckets}) = "
                f"{new_col_vocab_size + num_col_oov_buckets}, but received shape: {shape}"
            )
        offset = 0 if partition_info is None else partition_info.single_offset(shape)
        if offset + shape[0] > new_row_vocab_size + num_row_oov_buckets:
            raise ValueError(
                f"Trying to initialize {shape[0]} additional rows after {offset} rows have "
                "already been initialized, which would exceed expected total row count of "
                f"new_row_vocab_size ({new_row_vocab_size}) + num_row_oov_buckets "
                f"({num_row_oov_buckets}) = {new_row_vocab_size + num_row_oov_buckets}."
            )
        # A shard past the vocabulary holds only OOV rows.
        oov_rows = min(shape[0], max(0, offset + shape[0] - new_row_vocab_size))
        if offset > new_row_vocab_size:
            if shape[0] != oov_rows:
                raise ValueError(
                    "Partitioned variable offset is greater than new vocab size and not "
                    "operating on OOV-only partition."
                )
            return initializer(shape)
        return _load_and_remap_matrix(
            ckpt_path,
            old_tensor_name,
            new_row_vocab_offset=offset,
            num_rows_to_load=shape[0] - oov_rows,
            new_col_vocab_size=new_col_vocab_size,
            initializer=initializer,
            old_row_vocab_size=old_row_vocab_size,
            old_row_vocab_file=old_row_vocab_file,
            new_row_vocab_file=new_row_vocab_file,
            old_col_vocab_file=old_col_vocab_file,
            new_col_vocab_file=new_col_vocab_file,
            num_row_oov_buckets=oov_rows,
            num_col_oov_buckets=num_col_oov_buckets,
        )

    return init


def _warm_start_var_with_vocab(
    var: Any,
    current_vocab_path: Any,
    current_vocab_size: int,
    prev_ckpt: str,
    prev_vocab_path: Any,
    previous_vocab_size: int = -1,
    current_oov_buckets: int = 0,
    prev_tensor_name: str | None = None,
    initializer: Any = None,
    axis: int = 0,
) -> None:
    if not (current_vocab_path and current_vocab_size and prev_ckpt and prev_vocab_path):
        raise ValueError(
            "Invalid args: Must provide all of [current_vocab_path, current_vocab_size, "
            "prev_ckpt, prev_vocab_path}."
        )
    shards = _var_list(var)
    if not prev_tensor_name:
        prev_tensor_name = _infer_var_name(shards)
    ckpt_path = checkpoint_utils._checkpoint_filename(prev_ckpt)
    total_rows = sum(v.get_shape().as_list()[0] for v in shards)
    for v in shards:
        v_shape = v.get_shape().as_list()
        info = v._get_save_slice_info()
        partition_info = None if info is None else _PartitionInfo(info.full_shape, info.var_offset)
        if axis == 0:
            rows = (current_vocab_size, v_shape[1], previous_vocab_size)
            files = (prev_vocab_path, current_vocab_path, None, None)
            oov = (current_oov_buckets, 0)
        elif axis == 1:
            rows = (total_rows, current_vocab_size, -1)
            files = (None, None, prev_vocab_path, current_vocab_path)
            oov = (0, current_oov_buckets)
        else:
            raise ValueError(
                "The only supported values for the axis argument are 0 and 1.  Provided "
                f"axis: {axis}"
            )
        init = _remap_initializer(
            ckpt_path,  # type: ignore[arg-type]
            prev_tensor_name,
            new_row_vocab_size=rows[0],
            new_col_vocab_size=rows[1],
            old_row_vocab_size=rows[2],
            old_row_vocab_file=files[0],
            new_row_vocab_file=files[1],
            old_col_vocab_file=files[2],
            new_col_vocab_file=files[3],
            num_row_oov_buckets=oov[0],
            num_col_oov_buckets=oov[1],
            initializer=initializer,
        )
        value = convert_to_tensor(init(shape=v_shape, partition_info=partition_info))
        v._initializer_op = state_ops.assign(v, value).op


def _get_grouped_variables(vars_to_warm_start: Any) -> dict[str, list[Any]]:
    """checkpoint name -> the variables (or shards) of it that vars_to_warm_start selects."""
    if isinstance(vars_to_warm_start, str) or vars_to_warm_start is None:
        _log.info("Warm-starting variables only in TRAINABLE_VARIABLES.")
        found = get_collection(GraphKeys.TRAINABLE_VARIABLES, scope=vars_to_warm_start)
    elif isinstance(vars_to_warm_start, list):
        if all(isinstance(v, str) for v in vars_to_warm_start):
            found = []
            for scope in vars_to_warm_start:
                found += get_collection(GraphKeys.GLOBAL_VARIABLES, scope=scope)
        elif all(_is_variable(v) for v in vars_to_warm_start):
            found = vars_to_warm_start
        else:
            raise ValueError(
                "If `vars_to_warm_start` is a list, it must be all `Variable` or all `str`.  "
                f"Given types are {[type(v) for v in vars_to_warm_start]}"
            )
    else:
        raise ValueError(
            "`vars_to_warm_start must be a `list` or `str`.  Given type is "
            f"{type(vars_to_warm_start)}"
        )
    grouped: dict[str, list[Any]] = {}
    for v in found:
        name = _infer_var_name(v if isinstance(v, list) else [v])
        grouped.setdefault(name, []).append(v)
    return grouped


def warm_start(
    ckpt_to_initialize_from: str,
    vars_to_warm_start: Any = ".*",
    var_name_to_vocab_info: Mapping[str, VocabInfo] | None = None,
    var_name_to_prev_var_name: Mapping[str, str] | None = None,
) -> None:
    """Makes the initializers of the selected variables load them from the checkpoint (by
    regex over trainable variables, a list of scopes over global variables, or a list of
    variables), through a VocabInfo's remapping where one is given."""
    _log.info("Warm-starting from: %s", ckpt_to_initialize_from)
    grouped = _get_grouped_variables(vars_to_warm_start)
    vocab_infos = dict(var_name_to_vocab_info or {})
    prev_names = dict(var_name_to_prev_var_name or {})
    prev_used: set[str] = set()
    vocab_used: set[str] = set()
    vocabless: dict[str, Any] = {}
    count = 0
    for var_name, variable in grouped.items():
        prev_name = prev_names.get(var_name)
        if prev_name:
            prev_used.add(var_name)
        vocab_info = vocab_infos.get(var_name)
        if vocab_info:
            vocab_used.add(var_name)
            count += 1
            _warm_start_var_with_vocab(
                variable,
                current_vocab_path=vocab_info.new_vocab,
                current_vocab_size=vocab_info.new_vocab_size,
                prev_ckpt=ckpt_to_initialize_from,
                prev_vocab_path=vocab_info.old_vocab,
                previous_vocab_size=vocab_info.old_vocab_size,
                current_oov_buckets=vocab_info.num_oov_buckets,
                prev_tensor_name=prev_name,
                initializer=vocab_info.backup_initializer,
                axis=vocab_info.axis,
            )
        elif vars_to_warm_start:
            count += 1
            one = variable[0] if len(variable) == 1 else variable
            prev_tensor_name, var = _get_var_info(one, prev_name)
            vocabless[prev_tensor_name] = var
    checkpoint_utils.init_from_checkpoint(ckpt_to_initialize_from, vocabless)
    _log.info("Warm-started %d variables.", count)
    prev_unused = set(prev_names) - prev_used
    if prev_unused:
        raise ValueError(
            "You provided the following variables in var_name_to_prev_var_name that were not "
            f"used: {prev_unused}.  Perhaps you misspelled them?  Here is the list of viable "
            f"variable names: {grouped.keys()}"
        )
    vocab_unused = set(vocab_infos) - vocab_used
    if vocab_unused:
        raise ValueError(
            "You provided the following variables in var_name_to_vocab_info that were not "
            f"used: {vocab_unused}.  Perhaps you misspelled them?  Here is the list of viable "
            f"variable names: {grouped.keys()}"
        )


__all__ = ["VocabInfo", "warm_start"]
