"""Deprecation warnings TF 1.15 prints from its own files, against its recorded runs
(tests/tf_reference/record_library_warnings.py): Layer.apply announced at the first tf.layers
function (so a program's own later apply says nothing), and BaseResourceVariable's
`constraint` at the first resource variable (a Keras model's, a tf.Variable's), none for
reference variables alone, and build_tensor_info at the first SignatureDef simple_save or a
signature builder makes (none from the library after the program's own call), the deprecated
calls tf.nn.rnn_cell's cells make when built, extract_sub_graph in
convert_variables_to_constants, and the cells' tf.logging warnings."""

from __future__ import annotations

import json
import os
import sys

import pytest
from tf_reference.library_warning_cases import PROGRAMS, run_program

_DATA = os.path.join(
    os.path.dirname(__file__), "..", "tf_reference", "data", "library_warnings.json"
)
with open(_DATA) as f:
    _RECORDED = json.load(f)["cases"]


def test_every_program_is_recorded() -> None:
    assert sorted(PROGRAMS) == sorted(_RECORDED)


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_program_prints_tfs_library_warnings(name: str) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    assert run_program(sys.executable, "tfcluster", name, env=env) == _RECORDED[name]
