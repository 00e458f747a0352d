"""ConfigProto(log_device_placement=True) prints on stdout what TF 1.15 prints: the device
mapping when a local session is made, and every node's device each time the session's graph
grew, in TF's placer order (a local session placing pruned graphs, as InteractiveSession's
config says: each new step's nodes with its _Arg/_Retval nodes); a grpc:// session's server
prints the node lines, its client nothing (tests/tf_reference/placement_log_cases.py,
recorded by record_placement_log.py)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from tf_reference.placement_log_cases import all_names, run_case

_ROOT = Path(__file__).resolve().parents[2]
_DATA = json.loads((_ROOT / "tests/tf_reference/data/placement_log.json").read_text())


@pytest.mark.parametrize("name", all_names())
def test_log_device_placement_prints_what_tf_prints(name: str) -> None:
    # Recorded on a CPU-only TF 1.15: the same here, also on a machine with GPUs.
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    env["PYTHONPATH"] = os.pathsep.join(
        [str(_ROOT / "server"), *filter(None, [env.get("PYTHONPATH")])]
    )
    assert run_case(sys.executable, "tfcluster", name, env=env) == _DATA["cases"][name]
