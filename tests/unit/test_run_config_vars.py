"""A RunConfig's attributes against TF 1.15's recorded ones
(tests/tf_reference/record_run_config_vars.py): vars() in TF's order (an Estimator logs them
as its `Using config:` line), None as a local config's session config, a cluster task's
default session config, and the default an Estimator takes."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.run_config_vars_cases import CASES

AREA = "run_config_vars"


@pytest.mark.parametrize("name", sorted(CASES))
def test_run_config_holds_what_tfs_holds(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TF_CONFIG", raising=False)
    assert CASES[name](tf) == reference.case(AREA, name)
