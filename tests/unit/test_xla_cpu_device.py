"""Every task has TF 1.15's XLA_CPU device beside its CPU, as TF's pip wheels give it:
device_lib, Session.list_devices, tf.config and the placer's "available devices" list it; a
node asked onto it runs there when XLA has a kernel for its op and dtypes, and otherwise fails
with TF's placement error (or goes to the CPU under soft placement). Compared with TF 1.15's
outcomes (tests/tf_reference/data/xla_cpu_device.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import tfcluster as tf
from tf_reference.case_tools import same
from tf_reference.xla_cpu_device_cases import CASES
from tfcluster.runtime import gpu

_DATA = Path(__file__).parents[1] / "tf_reference" / "data" / "xla_cpu_device.json"
_RECORDED: dict[str, Any] = json.loads(_DATA.read_text())["cases"]


def test_every_case_is_recorded() -> None:
    assert sorted(CASES) == sorted(_RECORDED)


# Recorded on a host without GPUs: Keras's device check passes where there are two.
_NEEDS_NO_GPU = {"keras_multi_gpu_model_on_a_cpu_host"}


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_outcome_is_tfs(name: str) -> None:
    if name in _NEEDS_NO_GPU and gpu.local_gpus():
        pytest.skip("recorded on a host without GPUs")
    same(CASES[name](tf), _RECORDED[name], name)


def test_xla_cpu_nodes_run_on_xla_cpu() -> None:
    """The step's trace shows the node ran on the XLA_CPU device, not the CPU."""
    tf.reset_default_graph()
    with tf.device("/device:XLA_CPU:0"):
        y = tf.multiply(tf.constant([1.0, 2.0]), 3.0, name="y")
    meta = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(y, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=meta)
    ran = {n.node_name: d.device for d in meta.step_stats.dev_stats for n in d.node_stats}
    assert ran["y"] == "/job:localhost/replica:0/task:0/device:XLA_CPU:0"
