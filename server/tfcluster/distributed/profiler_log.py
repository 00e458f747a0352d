"""The line TF 1.15's C++ log writes when a traced step starts a profiler session: a local
session (DirectSession) starts one for a step traced at HARDWARE_TRACE or FULL_TRACE, a task's
master for a step traced at FULL_TRACE (once per step, however many tasks run it); each logs
"Profiler session started." before the step runs."""

from __future__ import annotations

from tfcluster.protos import config_pb2
from tfcluster.runtime import cpp_log

_WHERE = "tensorflow/core/profiler/lib/profiler_session.cc:205"


def step_starting(options: config_pb2.RunOptions | None, direct_session: bool) -> None:
    if options is None:
        return
    level = options.trace_level
    if direct_session:
        starts = level >= config_pb2.RunOptions.HARDWARE_TRACE
    else:
        starts = level == config_pb2.RunOptions.FULL_TRACE
    if starts:
        cpp_log.info(_WHERE, "Profiler session started.\n")
