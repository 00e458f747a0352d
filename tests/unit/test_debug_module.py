"""tensorflow.python.debug (tfdbg) imports as TF 1.15's does (`from tfcluster.python import
debug as tf_debug`): its public names, has_inf_or_nan's answers against TF's recorded ones
(tests/tf_reference/record_debug_module.py), and the debugger's sessions and hooks raising
UnimplementedError naming them."""

from __future__ import annotations

from typing import Any

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.debug_module_cases import CASES
from tfcluster.python import debug as tf_debug


@pytest.mark.parametrize("name", sorted(CASES))
def test_debug_module_as_tf(name: str) -> None:
    got: Any = CASES[name](tf_debug)
    assert got == reference.case("debug_module", name)


def test_a_debugger_session_is_unimplemented_naming_it() -> None:
    with pytest.raises(tf.errors.UnimplementedError, match="LocalCLIDebugWrapperSession"):
        tf_debug.LocalCLIDebugWrapperSession(tf.Session())
