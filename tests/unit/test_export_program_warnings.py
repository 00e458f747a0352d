"""A TF1 training-and-export program against TF 1.15's recorded runs
(tests/tf_reference/record_export_program_warnings.py): the SavedModel modules it imports by
path (`tensorflow.python.saved_model.builder`, `.utils`, `.signature_def_utils`, ...) hold
tf.saved_model's own objects; build_tensor_info, loader.load and main_op announce their
deprecation once whichever path the program calls them by; SavedModelBuilder's
add_meta_graph_and_variables and add_meta_graph announce `legacy_init_op` (passed as None
too); Adagrad's accumulators announce Constant.__init__'s `dtype` from the library unless the
program passed it first; and the flags TF's import defines (absltest's, pfor's) are there
before the program's own."""

from __future__ import annotations

import json
import os
import sys

import pytest
from tf_reference.export_program_warning_cases import PROGRAMS, run_program

_DATA = os.path.join(
    os.path.dirname(__file__), "..", "tf_reference", "data", "export_program_warnings.json"
)
with open(_DATA) as f:
    _RECORDED = json.load(f)["cases"]


def test_every_program_is_recorded() -> None:
    assert sorted(PROGRAMS) == sorted(_RECORDED)


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_program_prints_what_tf_prints(name: str) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    assert run_program(sys.executable, "tfcluster", name, env=env) == _RECORDED[name]
