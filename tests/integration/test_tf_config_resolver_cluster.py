"""A between-graph program finds its cluster with TFConfigClusterResolver, as a program in a
TFCluster pod does: each task's TF_CONFIG starts its server, and the worker's session
connects to the master URL the resolver builds ('grpc://host:port')."""

from __future__ import annotations

import json

import numpy as np
import pytest
import tfcluster as tf
from support.cluster_processes import free_ports

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


def test_tasks_started_from_tf_config_train_together(monkeypatch: pytest.MonkeyPatch) -> None:
    ps_port, worker_port = free_ports(2)
    cluster = {"ps": [f"localhost:{ps_port}"], "worker": [f"localhost:{worker_port}"]}
    servers = {}
    resolvers = {}
    for job in ("ps", "worker"):
        config = {"cluster": cluster, "task": {"type": job, "index": 0}, "rpc_layer": "grpc"}
        monkeypatch.setenv("TF_CONFIG", json.dumps(config))
        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
        servers[job] = tf.train.Server(
            resolver.cluster_spec(),
            job_name=resolver.task_type,
            task_index=resolver.task_id,
            protocol=resolver.rpc_layer,
        )
        resolvers[job] = resolver
        # The master this task's program connects to: its own server.
        assert resolver.master() == servers[job].target
    try:
        with tf.Graph().as_default():
            with tf.device("/job:ps/task:0"):
                w = tf.Variable([1.0, 2.0], name="w")
            with tf.device("/job:worker/task:0"):
                step = tf.assign_add(w, w * 0.5)
            with tf.Session(resolvers["worker"].master()) as sess:
                sess.run(w.initializer)
                sess.run(step)
                np.testing.assert_allclose(sess.run(w), [1.5, 3.0])
    finally:
        for server in servers.values():
            server.stop()
