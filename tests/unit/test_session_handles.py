"""Session tensor handles on a local session (tf.get_session_handle / get_session_tensor /
delete_session_tensor, TensorHandle): handle strings, values, names and errors as TF 1.15
gives them (checked against TF 1.15.0 by running the same program there)."""

from __future__ import annotations

import gc

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.ops import session_ops

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def test_a_handle_keeps_a_tensor_for_later_runs() -> None:
    with tf.Graph().as_default():
        c = tf.multiply(tf.constant(10.0, name="a"), tf.constant(5.0))
        h = tf.get_session_handle(c)
        assert (h.name, h.op.type, h.dtype) == ("GetSessionHandle:0", "GetSessionHandle", tf.string)
        with tf.Session() as sess:
            hv = sess.run(h)
            assert isinstance(hv, session_ops.TensorHandle)
            assert hv.handle == f"GetSessionHandle;0;{CPU}" == str(hv)
            assert hv.eval() == np.float32(50.0)
            p, x = tf.get_session_tensor(hv.handle, tf.float32)
            assert (p.name, x.name, x.dtype) == (
                "Placeholder_1:0",
                "GetSessionTensor_1:0",
                tf.float32,
            )
            y = tf.multiply(x, 10.0)
            assert sess.run(y, feed_dict={p: hv.handle}) == np.float32(500.0)
            # A TensorHandle fed to a placeholder of its dtype feeds the kept tensor.
            fp = tf.placeholder(tf.float32, name="fp")
            assert sess.run(fp * 2.0, feed_dict={fp: hv}) == np.float32(100.0)
            # Ids count up per session; a handle named by its op; a list of fetches.
            h2 = tf.get_session_handle(tf.constant([1, 2, 3]), name="mine")
            hv2 = sess.run(h2)
            assert hv2.handle == f"mine;1;{CPU}"
            np.testing.assert_array_equal(hv2.eval(), [1, 2, 3])
            hv3, cv = sess.run([h, c])
            assert (hv3.handle, cv) == (f"GetSessionHandle;2;{CPU}", np.float32(50.0))


def test_deleted_and_mistyped_handles_fail_as_in_tensorflow() -> None:
    with tf.Graph().as_default():
        h = tf.get_session_handle(tf.constant(3.0))
        hi = tf.get_session_handle(tf.constant([1, 2]))
        with tf.Session() as sess:
            hv, hiv = sess.run([h, hi])
            holder, deleter = tf.delete_session_tensor(hv.handle)
            assert (holder.op.type, deleter.type) == ("Placeholder", "DeleteSessionTensor")
            sess.run(deleter, feed_dict={holder: hv.handle})
            p, x = tf.get_session_tensor(hv.handle, tf.float32)
            with pytest.raises(tf.errors.InvalidArgumentError, match="not in the session store"):
                sess.run(x, feed_dict={p: hv.handle})
            with pytest.raises(tf.errors.InvalidArgumentError, match="Failed to delete a tensor"):
                sess.run(deleter, feed_dict={holder: hv.handle})
            p2, x2 = tf.get_session_tensor(hiv.handle, tf.float32)
            with pytest.raises(tf.errors.InternalError, match="int32 does not match"):
                sess.run(x2, feed_dict={p2: hiv.handle})
            # The session keeps working, and the other handle still reads.
            np.testing.assert_array_equal(hiv.eval(), [1, 2])
        with pytest.raises(TypeError, match="must be of type Tensor"):
            tf.get_session_handle(1.0)


def test_handles_gone_out_of_use_are_deleted_in_batches() -> None:
    with tf.Graph().as_default():
        h = tf.get_session_handle(tf.constant(1.0))
        with tf.Session() as sess:
            kept = [sess.run(h) for _ in range(sess._DEAD_HANDLES_THRESHOLD)]
            names = [k.handle for k in kept]
            del kept
            gc.collect()
            p, x = tf.get_session_tensor(names[0], tf.float32)
            for name in names:
                with pytest.raises(tf.errors.InvalidArgumentError):
                    sess.run(x, feed_dict={p: name})


def test_handles_live_in_their_session() -> None:
    with tf.Graph().as_default():
        h = tf.get_session_handle(tf.constant(7.0))
        with tf.Session() as first:
            handle = first.run(h).handle
        p, x = tf.get_session_tensor(handle, tf.float32)
        with tf.Session() as second, pytest.raises(tf.errors.InvalidArgumentError):
            second.run(x, feed_dict={p: handle})


def test_collecting_a_handle_deleted_already_does_not_break_the_next_run() -> None:
    with tf.Graph().as_default():
        h = tf.get_session_handle(tf.constant(1.0))
        with tf.Session() as sess:
            kept = [sess.run(h) for _ in range(sess._DEAD_HANDLES_THRESHOLD)]
            names = [k.handle for k in kept]
            holder, deleter = tf.delete_session_tensor(names[0])
            sess.run(deleter, feed_dict={holder: names[0]})
            del kept
            gc.collect()
            assert sess.run(tf.constant(2.0)) == np.float32(2.0)
            p, x = tf.get_session_tensor(names[-1], tf.float32)
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(x, feed_dict={p: names[-1]})
