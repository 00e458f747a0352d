"""What a training task prints, stdout and stderr in one stream (a pod's log), against TF
1.15's recorded runs (tests/tf_reference/record_task_output.py): SyncReplicasOptimizer's
aggregation line when made, log_device_placement's stdout and log line one node at a time,
and the "Profiler session started." line of a traced step (a local session's at
HARDWARE_TRACE and FULL_TRACE, a task's master's at FULL_TRACE, once per step); a daemon
thread blocked in a step on the process's own server says nothing when the process exits; a
variable named "global_step" outside the GLOBAL_STEP collection is found as its reference
tensor (the hooks' read of it adds no initialized_value); a session's first step logs the
tasks it still waits for every 10 seconds ("CreateSession still waiting for response from
worker: ..."); SavedModelBuilder takes its export directory as bytes (as TF's serving
tutorial passes it) and its save() gives the path as bytes; train_and_evaluate logs the final
export at DEBUG verbosity; tensorflow.python.platform.tf_logging has TF's get_logger; a local
session ignores ConfigProto.device_filters; train_and_evaluate as TF_CONFIG's `master` task
logs TF_CONFIG, starts its server ("Start Tensorflow server.") and evaluates after its
checkpoints; model_to_estimator logs "Using the Keras model provided."."""

from __future__ import annotations

import json
import os
import sys

import pytest
from tf_reference.task_output_cases import PROGRAMS, run_program

_DATA = os.path.join(os.path.dirname(__file__), "..", "tf_reference", "data", "task_output.json")
with open(_DATA) as f:
    _RECORDED = json.load(f)["cases"]


def test_every_program_is_recorded() -> None:
    assert sorted(PROGRAMS) == sorted(_RECORDED)


@pytest.mark.parametrize("name", sorted(_RECORDED))
def test_program_prints_what_tf_prints(name: str) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    assert run_program(sys.executable, "tfcluster", name, env=env) == _RECORDED[name]
