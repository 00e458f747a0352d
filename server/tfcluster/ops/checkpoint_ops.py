"""The vocabulary-remapping checkpoint ops of TF's gen_checkpoint_ops: GenerateVocabRemapping
(where each word of a new vocabulary sat in the old one) and LoadAndRemapMatrix (a matrix
read from a checkpoint with its rows and columns moved to their new places), which
tf.train.warm_start builds as the initializers of vocabulary-backed variables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.ops.op_util import Outputs, make_op


def _remapping_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.int64, TensorShape([attrs["num_new_vocab"]])), (dtypes.int32, TensorShape([]))]


def _load_and_remap_infer(inputs: Sequence[Tensor], attrs: dict[str, Any]) -> Outputs:
    return [(dtypes.float32, TensorShape([attrs["num_rows"], attrs["num_cols"]]))]


op_def_registry.register("GenerateVocabRemapping", _remapping_infer)
op_def_registry.register("LoadAndRemapMatrix", _load_and_remap_infer, stateful=True)


def generate_vocab_remapping(
    new_vocab_file: Any,
    old_vocab_file: Any,
    new_vocab_offset: int,
    num_new_vocab: int,
    old_vocab_size: int = -1,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """(remapping, num_present): for lines new_vocab_offset.. of the new vocabulary file, the
    line of the same word among the first old_vocab_size lines of the old one, or -1."""
    with name_scope(name, "GenerateVocabRemapping") as scope:
        new_t = convert_to_tensor(new_vocab_file, dtype=dtypes.string, name="new_vocab_file")
        old_t = convert_to_tensor(old_vocab_file, dtype=dtypes.string, name="old_vocab_file")
        attrs = {
            "new_vocab_offset": int(new_vocab_offset),
            "num_new_vocab": int(num_new_vocab),
            "old_vocab_size": int(old_vocab_size),
        }
        op = make_op("GenerateVocabRemapping", [new_t, old_t], attrs, name=scope)
        return op.outputs[0], op.outputs[1]


def load_and_remap_matrix(
    ckpt_path: Any,
    old_tensor_name: Any,
    row_remapping: Any,
    col_remapping: Any,
    initializing_values: Any,
    num_rows: int,
    num_cols: int,
    max_rows_in_memory: int = -1,
    name: str | None = None,
) -> Tensor:
    """A [num_rows, num_cols] float32 matrix: cell (i, j) is the checkpoint tensor's
    (row_remapping[i], col_remapping[j]) (j itself when col_remapping is empty), and the
    cells whose row or column maps to -1 take initializing_values in row-major order."""
    with name_scope(name, "LoadAndRemapMatrix") as scope:
        inputs = [
            convert_to_tensor(ckpt_path, dtype=dtypes.string, name="ckpt_path"),
            convert_to_tensor(old_tensor_name, dtype=dtypes.string, name="old_tensor_name"),
            convert_to_tensor(row_remapping, dtype=dtypes.int64, name="row_remapping"),
            convert_to_tensor(col_remapping, dtype=dtypes.int64, name="col_remapping"),
            convert_to_tensor(
                initializing_values, dtype=dtypes.float32, name="initializing_values"
            ),
        ]
        attrs = {
            "num_rows": int(num_rows),
            "num_cols": int(num_cols),
            "max_rows_in_memory": int(max_rows_in_memory),
        }
        return make_op("LoadAndRemapMatrix", inputs, attrs, name=scope).outputs[0]


__all__ = ["generate_vocab_remapping", "load_and_remap_matrix"]
