"""The profiler TF 1.15's Keras TensorBoard callback runs on its second batch (profile_batch=2)
and tensorflow.python.eager.profiler's start/stop/save, run by TF 1.15
(record_trace_profiler.py) and tfcluster (tests/unit/test_trace_profiler.py): the files a log
directory ends up with (plugins/profile/<run>/local.trace and an empty `*.profile-empty` event
file), the trace's device, its SessionRun events and the args of its op events, and the
profiler's errors. Timings and which kernels ran are each runtime's own, so they are not
compared. Python 3.7 code."""

from __future__ import annotations

import glob
import importlib
import os
import re
import tempfile

import numpy as np


def _layout(logdir):
    out = []
    for root, _, files in os.walk(logdir):
        for name in files:
            rel = os.path.relpath(os.path.join(root, name), logdir)
            rel = re.sub(r"events\.out\.tfevents\.[^/]*?(\.profile-empty)?$", r"events\1", rel)
            rel = re.sub(r"profile/\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d/", "profile/<run>/", rel)
            out.append(rel)
    return sorted(out)


def _events(tf, path):
    kinds = []
    for event in tf.train.summary_iterator(path):
        kinds.append(event.WhichOneof("what"))
    return kinds


def _trace(tf, path, graph):
    trace_events_pb2 = importlib.import_module(_root(tf) + ".core.protobuf.trace_events_pb2")
    trace = trace_events_pb2.Trace()
    with open(path, "rb") as f:
        trace.ParseFromString(f.read())
    runs = [e for e in trace.trace_events if e.name.strip() == "SessionRun"]
    ops = [e for e in trace.trace_events if e.name.strip() != "SessionRun"]
    label = re.compile(r"^id=\d+,device=/job:localhost/replica:0/task:0/device:CPU:0,async=false$")
    known = {op.name for op in graph.get_operations()}
    return {
        "devices": sorted(d.name for d in trace.devices.values()),
        "session_runs": len(runs),
        "run_names": sorted({e.name for e in runs}),
        "run_labels": all(re.match(r"^id=\d+$", e.args["label"]) for e in runs),
        "ops_recorded": len(ops) > 0,
        "op_labels": all(label.match(e.args["label"]) for e in ops),
        "long_names": all(
            e.args["long name"] == e.args["long name"].rsplit(":", 1)[0] + ":" + e.name for e in ops
        ),
        # Ops the step's graph holds under their own names (a runtime's fused or optimizer-made
        # kernels aside): the training step's variable updates are among them.
        "updates_recorded": any(
            e.name == "ResourceApplyGradientDescent"
            and e.args["long name"].rsplit(":", 1)[0] in known
            for e in ops
        ),
    }


def _root(tf):
    """The package holding tf's private tree (core/, python/)."""
    return "tensorflow_core" if tf.__name__.startswith("tensorflow") else tf.__name__


def _fit(tf, logdir, profile_batch, batches):
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    rng = np.random.RandomState(0)
    x = rng.rand(8 * batches, 3).astype("float32")
    y = rng.rand(8 * batches, 1).astype("float32")
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,))])
    model.compile("sgd", "mse")
    board = tf.keras.callbacks.TensorBoard(logdir, profile_batch=profile_batch)
    model.fit(x, y, batch_size=8, epochs=1, verbose=0, callbacks=[board])
    return tf.get_default_graph()


def keras_tensorboard_profiles_its_second_batch(tf):
    with tempfile.TemporaryDirectory() as logdir:
        graph = _fit(tf, logdir, 2, 3)
        layout = _layout(logdir)
        empty = glob.glob(os.path.join(logdir, "*.profile-empty"))
        trace = glob.glob(os.path.join(logdir, "plugins", "profile", "*", "local.trace"))
        return {
            "layout": layout,
            "empty_events": _events(tf, empty[0]) if empty else None,
            "trace": _trace(tf, trace[0], graph) if trace else None,
        }


def keras_tensorboard_without_profiling(tf):
    with tempfile.TemporaryDirectory() as logdir:
        _fit(tf, logdir, 0, 3)
        return {"layout": _layout(logdir)}


def keras_tensorboard_profile_cut_by_the_end_of_training(tf):
    """Training ends during the profiled batch's wait: the profile is saved at the end."""
    with tempfile.TemporaryDirectory() as logdir:
        _fit(tf, logdir, 2, 1)
        return {"layout": _layout(logdir)}


def profiler_module_start_stop_save(tf):
    profiler = importlib.import_module(_root(tf) + ".python.eager.profiler")
    errors = []
    try:
        profiler.stop()
    except Exception as e:
        errors.append(type(e).__name__)
    tf.reset_default_graph()
    a = tf.constant(2.0, name="a") * 3.0
    with tf.Session() as sess:
        profiler.start()
        try:
            profiler.start()
        except Exception as e:
            errors.append(type(e).__name__)
        sess.run(a)
        sess.run(a)
        result = profiler.stop()
    with tempfile.TemporaryDirectory() as logdir:
        profiler.save(logdir, result)
        profiler.save(logdir, result)  # a second run: one more trace, the same event file
        layout = _layout(logdir)
    trace_events_pb2 = importlib.import_module(_root(tf) + ".core.protobuf.trace_events_pb2")
    trace = trace_events_pb2.Trace()
    trace.ParseFromString(result)
    return {
        "errors": errors,
        "result_type": type(result).__name__,
        "devices": sorted(d.name for d in trace.devices.values()),
        "layout": sorted(set(layout)),
        "empty_files": len([p for p in layout if p.endswith("profile-empty")]),
    }


CASES = {
    "keras_tensorboard_profiles_its_second_batch": keras_tensorboard_profiles_its_second_batch,
    "keras_tensorboard_without_profiling": keras_tensorboard_without_profiling,
    "keras_tensorboard_profile_cut_by_the_end_of_training": (
        keras_tensorboard_profile_cut_by_the_end_of_training
    ),
    "profiler_module_start_stop_save": profiler_module_start_stop_save,
}
