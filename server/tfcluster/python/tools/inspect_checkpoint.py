"""tensorflow.python.tools.inspect_checkpoint: prints a checkpoint's tensors (names, shapes,
values) and counts its parameters, as TF 1.15's tool prints them.

    python -m tfcluster.python.tools.inspect_checkpoint --file_name=/tmp/model.ckpt
"""

from __future__ import annotations

import re
import sys
from typing import Any

import numpy as np
from absl import app, flags

from tfcluster.training.checkpoint_utils import CheckpointReader, NewCheckpointReader

# What TF's tool prints after an error whose file name has a V2 checkpoint's extension.
_V2_PREFIX_HINT = """
It's likely that this is a V2 checkpoint and you need to provide the filename
*prefix*.  Try removing the '.' and extension.  Try:
inspect checkpoint --file_name = {}"""


def _count_total_params(reader: CheckpointReader, count_exclude_pattern: str = "") -> int:
    shapes = reader.get_variable_to_shape_map()
    if count_exclude_pattern:
        pattern = re.compile(count_exclude_pattern)
        excluded = {k: v for k, v in shapes.items() if pattern.search(k)}
        shapes = {k: v for k, v in shapes.items() if k not in excluded}
        excluded_params = sum(int(np.prod(v)) for v in excluded.values())
        print(
            f"# Excluding {len(excluded)} tensors ({excluded_params} params) that match "
            f"{count_exclude_pattern} when counting."
        )
    return int(np.sum([np.prod(v) for v in shapes.values()], dtype=int))


def print_tensors_in_checkpoint_file(
    file_name: str,
    tensor_name: str,
    all_tensors: bool,
    all_tensor_names: bool = False,
    count_exclude_pattern: str = "",
) -> None:
    """Prints every tensor's name (and value with all_tensors), one tensor's value, or, with
    neither, each tensor's name, dtype and shape; then the number of parameters. An error is
    printed, not raised, as TF's tool does."""
    try:
        reader = NewCheckpointReader(file_name)
        if all_tensors or all_tensor_names:
            for key in sorted(reader.get_variable_to_shape_map()):
                print("tensor_name: ", key)
                if all_tensors:
                    print(reader.get_tensor(key))
        elif not tensor_name:
            print(reader.debug_string().decode("utf-8"))
        else:
            print("tensor_name: ", tensor_name)
            print(reader.get_tensor(tensor_name))
        total = _count_total_params(reader, count_exclude_pattern=count_exclude_pattern)
        print(f"# Total number of params: {total}")
    except Exception as e:
        print(str(e))
        if "corrupted compressed block contents" in str(e):
            print("It's likely that your checkpoint file has been compressed with SNAPPY.")
        if "Data loss" in str(e) and any(ext in file_name for ext in (".index", ".meta", ".data")):
            print(_V2_PREFIX_HINT.format(".".join(file_name.split(".")[:-1])))


def _define_flags() -> None:
    if "file_name" in flags.FLAGS:
        return
    flags.DEFINE_string(
        "file_name",
        "",
        "Checkpoint filename. Note, if using Checkpoint V2 format, file_name is the shared "
        "prefix between all files in the checkpoint.",
    )
    flags.DEFINE_string("tensor_name", "", "Name of the tensor to inspect")
    flags.DEFINE_string(
        "count_exclude_pattern",
        "",
        "Pattern to exclude tensors, e.g., from optimizers, when counting.",
    )
    flags.DEFINE_boolean("all_tensors", False, "Print the names and values of all the tensors.")
    flags.DEFINE_boolean("all_tensor_names", False, "Print the names of all the tensors.")
    flags.DEFINE_multi_string(
        "printoptions",
        [],
        "numpy print options as k=v, e.g. threshold=100000 (numpy.set_printoptions)",
    )


def _set_printoption(kv: str) -> None:
    key, sep, text = kv.partition("=")
    options: dict[str, Any] = dict(np.get_printoptions())
    if not sep or not key:
        raise app.UsageError(f"'{kv}' is not in the form k=v.")
    if key not in options or options[key] is None:
        raise app.UsageError(f"'{key}' is not a numpy print option that can be set here.")
    kind = type(options[key])
    value: Any = text.lower() in ("true", "1", "yes") if kind is bool else kind(text)
    np.set_printoptions(**{key: value})


def main(argv: list[str]) -> None:
    del argv
    f = flags.FLAGS
    if not f.file_name:
        print(
            "Usage: inspect_checkpoint --file_name=checkpoint_file_name "
            "[--tensor_name=tensor_to_print] [--all_tensors] [--all_tensor_names] "
            "[--printoptions]"
        )
        sys.exit(1)
    for kv in f.printoptions:
        _set_printoption(kv)
    print_tensors_in_checkpoint_file(
        f.file_name,
        f.tensor_name,
        f.all_tensors,
        f.all_tensor_names,
        count_exclude_pattern=f.count_exclude_pattern,
    )


if __name__ == "__main__":
    _define_flags()
    app.run(main)
