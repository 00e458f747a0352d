"""A client of a TFCluster, run in a pod (mounted from a ConfigMap): trains the example's
digits MLP through a remote session on ``--target``, placing variables with
``replica_device_setter`` over the cluster spec the operator publishes (``CLUSTER_SPEC``,
JSON, from the TFCluster's status). ``--task_index`` is the worker task whose device runs the
ops (between-graph: one client per worker; index 0 is the chief and checkpoints)."""

import argparse
import json
import os
import sys
import types

import tfcluster as tf
from tfcluster.examples import digits_distributed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", required=True)
    parser.add_argument("--task_index", type=int, default=0)
    ours, rest = parser.parse_known_args()
    args = digits_distributed.parse_args(["--progress=none", *rest])
    cluster = tf.train.ClusterSpec(json.loads(os.environ["CLUSTER_SPEC"]))
    server = types.SimpleNamespace(target=ours.target)
    result = digits_distributed.run_worker(server, cluster, ours.task_index, args)
    sys.exit(0 if result else 1)


if __name__ == "__main__":
    main()
