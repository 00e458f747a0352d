"""tensorflow.python.tools.inspect_checkpoint prints a checkpoint's tensors, dtypes, shapes
and parameter count as TF 1.15's tool does, errors included
(tests/tf_reference/inspect_checkpoint_cases.py, recorded by record_inspect_checkpoint.py);
`pywrap_tensorflow.NewCheckpointReader` reads the same checkpoint."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tfcluster as tf
from tf_reference.inspect_checkpoint_cases import CASES, run_cases, write_checkpoint
from tfcluster.python import pywrap_tensorflow
from tfcluster.python.tools.inspect_checkpoint import print_tensors_in_checkpoint_file

_ROOT = Path(__file__).resolve().parents[2]
_DATA = json.loads((_ROOT / "tests/tf_reference/data/inspect_checkpoint.json").read_text())


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    directory = str(tmp_path_factory.mktemp("ckpt"))
    return write_checkpoint(tf, directory), directory


@pytest.mark.parametrize("name", sorted(CASES))
def test_prints_what_tf_prints(checkpoint: tuple[str, str], name: str) -> None:
    prefix, directory = checkpoint
    printed = run_cases(print_tensors_in_checkpoint_file, prefix, directory)
    assert printed[name] == _DATA["cases"][name]


def test_pywrap_checkpoint_reader_reads_values(checkpoint: tuple[str, str]) -> None:
    reader = pywrap_tensorflow.NewCheckpointReader(checkpoint[0])
    assert reader.get_variable_to_shape_map()["layer/kernel"] == [2, 2]
    np.testing.assert_array_equal(reader.get_tensor("steps"), [7, 8])


def test_command_line_prints_one_tensor(checkpoint: tuple[str, str]) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tfcluster.python.tools.inspect_checkpoint",
            f"--file_name={checkpoint[0]}",
            "--tensor_name=v2",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    assert out.stdout == "tensor_name:  v2\n[-1. -1. -1. -1. -1.]\n# Total number of params: 15\n"
