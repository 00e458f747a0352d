"""TF 1.15's profiler session (tensorflow.python.eager.profiler): start() begins recording the
steps this process's sessions run, stop() returns them as a serialized Trace (trace_events.
proto) and save() writes it where TensorBoard's profile plugin looks, logdir/plugins/profile/
<date_time>/local.trace, next to an empty `*.profile-empty` event file that makes TensorBoard
show the plugin. Keras's TensorBoard callback profiles its second batch this way.

While a profiler runs, each Session.run is traced (RunOptions FULL_TRACE) and becomes a
`SessionRun ` event on the calling thread's `python` resource, and every node it ran an event
named after the op type on the `tf_Compute` resource of the thread that ran it, with TF's
args ("long name" `node:Op`, "label" `id=<step>,device=<device>,async=false`)."""

from __future__ import annotations

import datetime
import os
import threading
import time
from typing import Any

from tfcluster.framework import event_files
from tfcluster.protos import config_pb2, trace_events_pb2
from tfcluster.runtime.step_trace import SOURCE_NODE

_EVENT_FILE_SUFFIX = ".profile-empty"
_HOST_DEVICE = 0


class ProfilerAlreadyRunningError(Exception):
    pass


class ProfilerNotRunningError(Exception):
    pass


class _Recording:
    def __init__(self) -> None:
        self.start_ns = time.time_ns()
        self.trace = trace_events_pb2.Trace()
        device = self.trace.devices[_HOST_DEVICE]
        device.name = "/host:CPU"
        device.device_id = _HOST_DEVICE
        self.lock = threading.Lock()

    def _ps(self, micros_or_ns: int, unit_ns: int) -> int:
        return max(0, (micros_or_ns * unit_ns - self.start_ns) * 1000)

    def _resource(self, thread_id: int, name: str) -> int:
        resources = self.trace.devices[_HOST_DEVICE].resources
        if thread_id not in resources:
            resources[thread_id].name = name
            resources[thread_id].resource_id = thread_id
        return thread_id

    def add_run(self, step_id: int, start_ns: int, end_ns: int, stats: Any) -> None:
        with self.lock:
            python = self._resource(threading.get_ident() & 0xFFFFFFFF, "python")
            run = self.trace.trace_events.add(
                device_id=_HOST_DEVICE,
                resource_id=python,
                name="SessionRun ",  # as TF's trace names it (its TraceMe's name, label cut)
                timestamp_ps=self._ps(start_ns, 1),
                duration_ps=max(0, end_ns - start_ns) * 1000,
            )
            run.args["label"] = f"id={step_id}"
            for device in stats.dev_stats if stats is not None else ():
                for node in device.node_stats:
                    op = _op_type(node.timeline_label)
                    if not op or node.node_name == SOURCE_NODE:
                        continue  # the executor's own marker, not a node of the graph
                    event = self.trace.trace_events.add(
                        device_id=_HOST_DEVICE,
                        resource_id=self._resource(node.thread_id, "tf_Compute"),
                        name=op,
                        timestamp_ps=self._ps(node.all_start_micros, 1000),
                        duration_ps=max(0, node.op_end_rel_micros) * 1_000_000,
                    )
                    event.args["long name"] = f"{node.node_name}:{op}"
                    event.args["label"] = f"id={step_id},device={device.device},async=false"


_lock = threading.Lock()
_recording: _Recording | None = None
_step_ids = iter(range(1, 2**63))


def _op_type(label: str) -> str:
    """'name = Op(inputs)' -> 'Op'."""
    _, sep, rest = label.partition(" = ")
    return rest.partition("(")[0] if sep else ""


def start() -> None:
    """Starts recording the steps sessions run; one profiler at a time."""
    global _recording
    with _lock:
        if _recording is not None:
            raise ProfilerAlreadyRunningError("Another profiler is running.")
        _recording = _Recording()


def stop() -> bytes:
    """Stops recording; the steps recorded as a serialized Trace."""
    global _recording
    with _lock:
        if _recording is None:
            raise ProfilerNotRunningError("Cannot stop profiling. No profiler is running.")
        done, _recording = _recording, None
    with done.lock:
        return bytes(done.trace.SerializeToString())


def maybe_create_event_file(logdir: str) -> None:
    """An empty event file (`*.profile-empty`) in logdir, unless one is there: it tells
    TensorBoard that logdir holds plugins/profile/."""
    for name in os.listdir(logdir):
        if name.endswith(_EVENT_FILE_SUFFIX):
            return
    event_files.open_events_file(logdir, _EVENT_FILE_SUFFIX).close()


def save(logdir: str, result: bytes) -> None:
    """Writes a profile stop() returned where TensorBoard's profile plugin reads it."""
    plugin_dir = os.path.join(
        logdir, "plugins", "profile", datetime.datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
    )
    os.makedirs(plugin_dir, exist_ok=True)
    maybe_create_event_file(logdir)
    with open(os.path.join(plugin_dir, "local.trace"), "wb") as f:
        f.write(result)


# ---- what Session.run asks -------------------------------------------------------------------
def active() -> bool:
    return _recording is not None


def traced(options: config_pb2.RunOptions | None) -> config_pb2.RunOptions:
    """The run's options with a full trace, for a step the profiler records."""
    out = config_pb2.RunOptions()
    if options is not None:
        out.CopyFrom(options)
    out.trace_level = config_pb2.RunOptions.FULL_TRACE
    return out


def record(start_ns: int, end_ns: int, stats: Any) -> None:
    """A step a session ran while recording (stats: its StepStats)."""
    recording = _recording
    if recording is not None:
        recording.add_run(next(_step_ids), start_ns, end_ns, stats)
