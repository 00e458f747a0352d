"""Records TensorFlow 1.15's Estimator under its distribute coordinator (the programs of
distribute_coordinator_cases.py): RunConfig settings with train_distribute under several
TF_CONFIGs, the errors of a direct train / evaluate in INDEPENDENT_WORKER mode, and what each
worker of a two-worker MultiWorkerMirroredStrategy train_and_evaluate sees:
data/distribute_coordinator.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_distribute_coordinator.py
"""

import json
import os
import socket
import sys
import tempfile

import tensorflow as tf
from distribute_coordinator_cases import (
    CONFIG_CASES,
    INPUT_CONTEXT_CASES,
    config_case,
    direct_call_case,
    input_context_case,
    run_cluster,
)


def _free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("localhost", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def main():
    data = {"tf_version": tf.__version__, "config": {}, "direct_call": {}}
    for name, tf_config in CONFIG_CASES:
        data["config"][name] = config_case(tf, tf_config)
    data["input_context"] = {}
    for name, strategy, cluster, task_type, task_id in INPUT_CONTEXT_CASES:
        data["input_context"][name] = input_context_case(tf, strategy, cluster, task_type, task_id)
    for call in ("train", "evaluate"):
        data["direct_call"][call] = direct_call_case(tf, tempfile.mkdtemp(), call)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    data["workers"] = run_cluster(
        sys.executable, "tensorflow", tempfile.mkdtemp(), _free_ports(2), env
    )
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "data", "distribute_coordinator.json"), "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
