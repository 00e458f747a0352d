"""MirroredStrategy() in a process whose TF_CONFIG names a cluster (as under kubeflow's
TFJob): in graph mode TF 1.15 takes its default devices from the cluster's chief and worker
tasks, and refuses those on more than one task (in-graph multi-worker training). Each case
builds strategies under a TF_CONFIG and records what they hold or the error they raise.
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_mirrored_cluster.py and on
tfcluster by tests/unit/test_mirrored_strategy_in_a_cluster.py. Python 3.7 code."""

from __future__ import annotations

import json
import os

_TWO_WORKERS = {"worker": ["localhost:1", "localhost:2"]}


def _attempt(tf, cluster, devices=None):
    saved = os.environ.pop("TF_CONFIG", None)
    if cluster is not None:
        os.environ["TF_CONFIG"] = json.dumps(
            {"cluster": cluster, "task": {"type": "worker", "index": 0}}
        )
    try:
        strategy = tf.distribute.MirroredStrategy(devices)
        return {
            "replicas": strategy.num_replicas_in_sync,
            "worker_devices": list(strategy.extended.worker_devices),
            "parameter_devices": list(strategy.extended.parameter_devices),
        }
    except Exception as e:  # the error is the answer
        return {"error": type(e).__name__, "message": str(e)}
    finally:
        os.environ.pop("TF_CONFIG", None)
        if saved is not None:
            os.environ["TF_CONFIG"] = saved


def default_devices_from_tf_config(tf):
    """No devices given: the cluster's chief and worker tasks (a ps-only cluster has none, so
    this process's devices); devices given are the ones used."""
    return {
        "two_workers": _attempt(tf, _TWO_WORKERS),
        "one_worker_and_a_ps": _attempt(tf, {"worker": ["localhost:1"], "ps": ["localhost:3"]}),
        "chief_and_worker": _attempt(tf, {"chief": ["localhost:0"], "worker": ["localhost:1"]}),
        "ps_only": _attempt(tf, {"ps": ["localhost:3"]}),
        "devices_given": _attempt(tf, _TWO_WORKERS, ["/cpu:0"]),
    }


CASES = {
    "default_devices_from_tf_config": default_devices_from_tf_config,
}
