"""Modules of TensorFlow's private tree imported by path (tensorflow.python.ops.nn) hold
tf.nn's own functions, against TF 1.15's recorded answers
(tests/tf_reference/record_private_modules.py)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.private_module_cases import CASES
from tfcluster.python import _tf115_private_names
from tfcluster.python._private_module import UnimplementedName

AREA = "private_modules"


def test_the_nn_module_holds_tf_nns_functions() -> None:
    name = "nn_module_functions_are_tf_nns"
    reference.assert_case_equal(AREA, name, CASES[name](tf))


def test_the_nn_modules_functions_compute_as_tf_nns() -> None:
    expected = reference.case(AREA, "nn_module_functions_run")
    actual = CASES["nn_module_functions_run"](tf)
    assert sorted(actual) == sorted(expected)
    for name, want in expected.items():
        np.testing.assert_allclose(actual[name], want, rtol=1e-6, err_msg=name)


@pytest.mark.parametrize(
    "name",
    [
        "rnn_cell_impl_holds_tf_nn_rnn_cells",
        "rnn_cell_module_holds_rnn_cell_impls_cells",
        "graph_io_and_importer_write_and_read_a_graph",
        "random_seed_module_seeds_the_graph",
        "platform_test_holds_tf_test",
        "training_session_and_record_modules_hold_tfs_objects",
        "rnn_module_holds_tf_nns_drivers",
        "layers_core_holds_tf_layers",
        "layers_base_holds_tf_layers_layer",
        "unknown_names_raise_attribute_error",
        "constant_op_module_builds_tf_constants",
        "summary_module_holds_tf_summarys",
        "gen_op_modules_build_tf_ops",
        "defun_functions_compute_and_differentiate",
        "freeze_graph_freezes_a_checkpointed_graph",
        "lookup_ops_builds_vocabulary_tables",
        "nn_impl_holds_tf_nns_functions",
        "eager_context_reports_graph_mode",
        "deprecation_decorates_a_programs_functions",
    ],
)
def test_a_private_module_answers_as_tf_115s(name: str) -> None:
    reference.assert_case_equal(AREA, name, CASES[name](tf))


@pytest.mark.parametrize("path", sorted(_tf115_private_names.NAMES))
def test_every_name_of_tf_115s_module_is_there_or_unimplemented(path: str) -> None:
    """Each name TF 1.15's module holds is present, or raises UnimplementedError naming it when
    used (never AttributeError)."""
    module = importlib.import_module(f"tfcluster.{path}")
    for name in _tf115_private_names.NAMES[path]:
        value = getattr(module, name)
        if isinstance(value, UnimplementedName):
            with pytest.raises(tf.errors.UnimplementedError, match=f"tensorflow.{path}.{name}"):
                value()
