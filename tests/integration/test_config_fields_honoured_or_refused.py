"""ConfigProto fields are honoured or refused with a clear error, never accepted silently:
isolate_session_state (a local session's resources are its own; a task's master refuses it)
and rpc_options.compression_algorithm (refused: tensors travel uncompressed)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


def _counter() -> tuple[tf.Graph, tf.Operation, tf.Tensor]:
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(0.0, name="shared_name_v")
        bump = tf.assign_add(v, 1.0)
    return g, v.initializer, bump


def test_local_sessions_with_isolated_state_keep_their_variables_apart() -> None:
    g, init, bump = _counter()
    config = tf.ConfigProto(isolate_session_state=True)
    with tf.Session(graph=g, config=config) as a, tf.Session(graph=g, config=config) as b:
        a.run(init)
        b.run(init)
        a.run(bump)
        np.testing.assert_allclose(a.run(bump), 2.0)
        np.testing.assert_allclose(b.run(bump), 1.0)


def test_a_tasks_master_refuses_isolated_session_state() -> None:
    server = tf.train.Server.create_local_server()
    try:
        g, init, _ = _counter()
        config = tf.ConfigProto(isolate_session_state=True)
        config.rpc_options.use_rpc_for_inprocess_master = True
        with (
            tf.Session(server.target, graph=g, config=config) as sess,
            pytest.raises(tf.errors.UnimplementedError, match="isolate_session_state"),
        ):
            sess.run(init)
        with tf.Session(server.target, graph=g) as sess:  # the task keeps serving
            sess.run(init)
    finally:
        server.stop()


def test_rpc_compression_is_refused_by_name() -> None:
    config = tf.ConfigProto()
    config.rpc_options.compression_algorithm = "gzip"
    with pytest.raises(tf.errors.UnimplementedError, match="compression_algorithm='gzip'"):
        tf.Session("grpc://localhost:1", config=config)
