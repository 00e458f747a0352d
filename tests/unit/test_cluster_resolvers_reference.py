"""tf.distribute.cluster_resolver against TensorFlow 1.15's recorded answers: the very same
cases (tests/tf_reference/cluster_resolver_cases.py) with the same TF_CONFIG / SLURM_*
variables and the same stand-in `scontrol` give the same cluster specs, masters, tasks and
error classes."""

from __future__ import annotations

import os

import pytest
import tfcluster as tf
from tf_reference import cluster_resolver_cases as cases
from tf_reference import reference
from tf_reference.codec import decode, encode


@pytest.fixture
def scontrol_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = cases.fake_scontrol_dir(cases.SLURM_HOSTS)
    monkeypatch.setenv("PATH", folder + os.pathsep + os.environ["PATH"])


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_resolver_case_matches_tensorflow_1_15(
    name: str, monkeypatch: pytest.MonkeyPatch, scontrol_on_path: None
) -> None:
    env, case = cases.CASES[name]
    for variable in cases.VARIABLES:
        # setenv first so that the variable is restored afterwards even when it was unset
        # (Slurm's auto_set_gpu writes CUDA_VISIBLE_DEVICES).
        monkeypatch.setenv(variable, "")
        monkeypatch.delenv(variable)
    for variable, value in env.items():
        monkeypatch.setenv(variable, value)
    ours = decode(encode(case(tf.distribute.cluster_resolver, tf.train.ClusterSpec)))
    assert ours == reference.case("cluster_resolvers", name)["values"]
