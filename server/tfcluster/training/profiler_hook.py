"""tf.train.ProfilerHook: every N steps or seconds, traces one step (RunOptions FULL_TRACE)
and writes it as a Chrome trace, `<output_dir>/timeline-<global step>.json`, and as run
metadata tagged `step_<global step>` in the event file of output_dir."""

from __future__ import annotations

import logging
import os
from typing import Any

from tfcluster.client.timeline import Timeline
from tfcluster.protos import config_pb2
from tfcluster.training import training_util
from tfcluster.training.basic_session_run_hooks import SecondOrStepTimer
from tfcluster.training.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)
from tfcluster.training.summary_io import FileWriterCache

_log = logging.getLogger("tensorflow")


class ProfilerHook(SessionRunHook):
    def __init__(
        self,
        save_steps: int | None = None,
        save_secs: float | None = None,
        output_dir: str = "",
        show_dataflow: bool = True,
        show_memory: bool = False,
    ) -> None:
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._file_writer = FileWriterCache.get(output_dir)
        self._show_dataflow = show_dataflow
        self._show_memory = show_memory
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self) -> None:
        self._next_step: int | None = None
        self._global_step_tensor = training_util._get_or_create_global_step_read()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use ProfilerHook.")

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        # The first step is never traced: it includes the one-off costs of a new session.
        self._request_trace = self._next_step is not None and self._timer.should_trigger_for_step(
            self._next_step
        )
        options = (
            config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE)
            if self._request_trace
            else None
        )
        return SessionRunArgs({"global_step": self._global_step_tensor}, options=options)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        stale_global_step = int(run_values.results["global_step"])
        if self._next_step is None:
            # Count N steps (or seconds) from the first one.
            self._timer.update_last_triggered_step(stale_global_step)
        global_step = stale_global_step + 1
        if self._request_trace:
            global_step = int(run_context.session.run(self._global_step_tensor))
            self._timer.update_last_triggered_step(global_step)
            metadata = run_values.run_metadata
            self._save(global_step, self._output_file.format(global_step), metadata.step_stats)
            self._file_writer.add_run_metadata(metadata, f"step_{global_step}")
        self._next_step = global_step + 1

    def _save(self, step: int, save_path: str, step_stats: Any) -> None:
        _log.info("Saving timeline for %d into '%s'.", step, save_path)
        trace = Timeline(step_stats).generate_chrome_trace_format(
            show_dataflow=self._show_dataflow, show_memory=self._show_memory
        )
        with open(save_path, "w") as f:
            f.write(trace)


__all__ = ["ProfilerHook"]
