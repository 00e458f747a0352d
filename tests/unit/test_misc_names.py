"""The last TF 1.15 names of issue 15 (Session.partial_run, GetSessionHandleV2, the remaining
random / dataset / ragged / quantized raw ops, tf.config devices, PythonState, ...) compute
what TF 1.15 computes: each program of tests/tf_reference/misc_names_cases.py runs here on
tfcluster and is compared with TF 1.15's recorded answers (record_misc_names.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.misc_names_cases import CASES
from tfcluster.client import context_config


def _assert_same(got: Any, recorded: Any, where: str) -> None:
    if isinstance(recorded, dict):
        assert isinstance(got, dict), where
        assert sorted(got) == sorted(recorded), where
        for k in recorded:
            _assert_same(got[k], recorded[k], f"{where}.{k}")
    elif isinstance(recorded, list):
        assert isinstance(got, (list, tuple)), where
        assert len(got) == len(recorded), where
        for i, (g, r) in enumerate(zip(got, recorded)):
            _assert_same(g, r, f"{where}[{i}]")
    elif isinstance(recorded, np.ndarray):
        assert np.asarray(got).dtype == recorded.dtype, where
        reference.assert_close(got, recorded, rtol=1e-5, atol=1e-5)
    else:
        assert got == recorded, where


@pytest.fixture(autouse=True)
def _fresh_device_context() -> Any:
    """tf.config's device settings are the process's (TF's context): each case starts from
    a context not yet initialized, and leaves the others' as they were."""
    saved = dict(context_config._devices), dict(context_config._virtual_devices)
    context_config._devices.update(visible=None, initialized=False)
    context_config._virtual_devices.clear()
    yield
    context_config._devices.update(saved[0])
    context_config._virtual_devices.clear()
    context_config._virtual_devices.update(saved[1])


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_computes_what_tf_computed(name: str) -> None:
    tf.reset_default_graph()
    tf.set_random_seed(1)
    _assert_same(CASES[name](tf), reference.case("misc_names", name), name)
