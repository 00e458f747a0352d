"""What Session.run leaves in the run_metadata it is given: TF 1.15 parses the step's
RunMetadata into it, replacing what it held (a run without a trace empties it) and working
with any RunMetadata class of TF's wire format (TensorBoard's demos pass tensorboard's own).
Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by record_run_metadata.py and on
tfcluster by tests/unit/test_run_metadata.py. Python 3.7 code."""

from __future__ import annotations


def filled_and_replaced(tf):
    with tf.Graph().as_default():
        x = tf.constant(1.0, name="x") * 2.0
        with tf.Session() as sess:
            meta = tf.RunMetadata()
            meta.step_stats.dev_stats.add(device="/job:junk")
            meta.partition_graphs.add()
            sess.run(x, run_metadata=meta)
            untraced = [len(meta.step_stats.dev_stats), len(meta.partition_graphs)]
            trace = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
            sess.run(x, options=trace, run_metadata=meta)
            devices = sorted(d.device for d in meta.step_stats.dev_stats)
            called = sess.make_callable(x, accept_options=True)
            meta2 = tf.RunMetadata()
            meta2.partition_graphs.add()
            called(run_metadata=meta2)
        return {
            "untraced": untraced,
            "traced_has_junk": "/job:junk" in devices,
            "traced_has_stats": bool(devices),
            "callable_untraced_partition_graphs": len(meta2.partition_graphs),
        }


CASES = {"filled_and_replaced": filled_and_replaced}
