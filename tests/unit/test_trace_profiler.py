"""The profiler as TF 1.15 runs it (tests/tf_reference/data/trace_profiler.json): Keras's
TensorBoard callback traces its second batch into log_dir/plugins/profile/<run>/local.trace
(a trace_events Trace of the host CPU: the step's SessionRun and the ops it ran, named and
labelled as TF's) beside an empty `*.profile-empty` event file; profile_batch=0 writes no
profile; tensorflow.python.eager.profiler's start/stop/save and their errors."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.trace_profiler_cases import CASES
from tfcluster.client import trace_profiler
from tfcluster.protos import config_pb2, trace_events_pb2

AREA = "trace_profiler"


@pytest.mark.parametrize("name", sorted(CASES))
def test_profiles_as_tf(name: str) -> None:
    same(CASES[name](tf), reference.case(AREA, name), name)


def test_a_run_traced_only_for_the_profiler_gives_the_caller_no_step_stats() -> None:
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [2])
    y = tf.square(x, name="y")
    with tf.Session() as sess:
        trace_profiler.start()
        try:
            quiet = tf.RunMetadata()
            sess.run(y, {x: [1.0, 2.0]}, run_metadata=quiet)
            traced = tf.RunMetadata()
            options = tf.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE)
            sess.run(y, {x: [1.0, 2.0]}, options=options, run_metadata=traced)
        finally:
            result = trace_profiler.stop()
    assert not quiet.step_stats.dev_stats
    assert any(n.node_name == "y" for d in traced.step_stats.dev_stats for n in d.node_stats)
    trace = trace_events_pb2.Trace.FromString(result)
    names = [e.args["long name"] for e in trace.trace_events if "long name" in e.args]
    assert names.count("y:Square") == 2
    assert not trace_profiler.active()
