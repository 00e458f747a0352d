"""tf.summary.FileWriter: TensorBoard event files (TFRecord of Event protos).

The record format is tensorboardX's, the Event/Summary protos TF's (tfcluster.protos, the
wire format TensorBoard reads); writes are synchronous into a buffered file, flushed every
`flush_secs`, on flush() and on close().
"""

from __future__ import annotations

import atexit
import os
import threading
import time
import warnings
from typing import Any

from tensorboardX.event_file_writer import EventsWriter

from tfcluster.framework import meta_graph
from tfcluster.framework.event_files import open_events_file
from tfcluster.framework.graph import get_default_graph
from tfcluster.protos import event_pb2, graph_pb2, summary_pb2

Event = event_pb2.Event
SessionLog = event_pb2.SessionLog
Summary = summary_pb2.Summary
TaggedRunMetadata = event_pb2.TaggedRunMetadata


def _as_summary(summary: Any) -> summary_pb2.Summary:
    if isinstance(summary, summary_pb2.Summary):
        return summary
    if hasattr(summary, "item") and not isinstance(summary, (bytes, str)):
        summary = summary.item()
    if isinstance(summary, bytes):
        return summary_pb2.Summary.FromString(summary)
    if hasattr(summary, "SerializeToString"):
        return summary_pb2.Summary.FromString(summary.SerializeToString())
    raise TypeError(f"add_summary expects a Summary proto or its serialized bytes, got {summary!r}")


class EventFileWriter:
    """The events file of a directory: TF's EventFileWriter (FileWriter.event_writer). Events
    are written as they come into a buffered file, handed to the OS every `max_queue` events
    and synced every `flush_secs`, on flush() and on close()."""

    def __init__(
        self, logdir: str, max_queue: int = 10, flush_secs: float = 120, filename_suffix: str = ""
    ) -> None:
        self._logdir = str(logdir)
        self._flush_secs = flush_secs
        self._max_queue = max_queue
        self._user_suffix = filename_suffix or ""
        self._lock = threading.Lock()
        self._closed = True
        self._writer: EventsWriter | None = None
        self.reopen()

    def get_logdir(self) -> str:
        return self._logdir

    @property
    def event_file(self) -> str:
        """The current event file (made now if nothing was written yet)."""
        with self._lock:
            return str(self._open_file()._file_name)

    def reopen(self) -> None:
        """Starts a new event file after close(); does nothing while open. As in TF, the file
        is made when the first event is written (a writer that writes nothing leaves none),
        or at once when the writer has a filename_suffix."""
        with self._lock:
            if not self._closed:
                return
            if self._logdir:
                os.makedirs(self._logdir, exist_ok=True)
            self._writer = None
            self._pending = 0
            self._last_flush = time.monotonic()
            self._closed = False
            if self._user_suffix:
                self._open_file()

    def _open_file(self) -> EventsWriter:
        if self._writer is None:
            self._writer = open_events_file(self._logdir, self._user_suffix)
        return self._writer

    def add_event(self, event: Any) -> None:
        with self._lock:
            if self._closed:
                return
            writer = self._open_file()
            writer.write_event(event)
            self._pending += 1
            now = time.monotonic()
            if now - self._last_flush >= self._flush_secs:
                writer.flush()
                self._pending = 0
                self._last_flush = now
            elif self._pending >= self._max_queue:
                # TF 1.15 syncs only every flush_secs; a full queue just hands the events to
                # the OS (readers see them) without an fsync per max_queue events.
                _hand_to_os(writer)
                self._pending = 0

    def flush(self) -> None:
        with self._lock:
            if not self._closed and self._writer is not None:
                self._writer.flush()
                self._pending = 0
                self._last_flush = time.monotonic()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            if self._writer is not None:
                self._writer.close()
            self._closed = True


class FileWriter:
    """Writes summaries, the graph and session logs to an event file in `logdir`."""

    def __init__(
        self,
        logdir: str,
        graph: Any = None,
        max_queue: int = 10,
        flush_secs: float = 120,
        graph_def: Any = None,
        filename_suffix: str | None = None,
        session: Any = None,
    ) -> None:
        self.event_writer = EventFileWriter(logdir, max_queue, flush_secs, filename_suffix or "")
        self._closed = False
        # Tags whose metadata (a plugin's name and data) this writer already wrote.
        self._seen_summary_tags: set[str] = set()
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)
            # As TF: a writer given the graph also writes its MetaGraph.
            given = graph_def if graph_def is not None else graph
            if not isinstance(given, graph_pb2.GraphDef):
                given = given.as_graph_def(add_shapes=True)
            self.add_meta_graph(meta_graph.create_meta_graph_def(graph_def=given))

    def get_logdir(self) -> str:
        return self.event_writer.get_logdir()

    @property
    def event_file(self) -> str:
        """The current event file (made now if nothing was written yet)."""
        return self.event_writer.event_file

    def _warn_if_event_writer_is_closed(self) -> None:
        if self._closed:
            warnings.warn(
                "Attempting to use a closed FileWriter. The operation will be a noop unless "
                "the FileWriter is explicitly reopened.",
                stacklevel=1,  # as TF: the warning names the library line, once
            )

    def reopen(self) -> None:
        """Starts a new event file after close(); does nothing while open."""
        self.event_writer.reopen()
        self._closed = False

    # ---- events ------------------------------------------------------------------------
    def add_event(self, event: Any) -> None:
        self._warn_if_event_writer_is_closed()
        self.event_writer.add_event(event)

    def _event(self, global_step: Any = None, **fields: Any) -> Any:
        ev = event_pb2.Event(wall_time=time.time(), **fields)
        if global_step is not None:
            ev.step = int(global_step)
        return ev

    def add_summary(self, summary: Any, global_step: Any = None) -> None:
        """A Summary proto or the bytes a summary op returned. As TF's, a value's metadata is
        written only with the first value of its tag this writer sees (TensorBoard keeps it
        per tag): later ones lose it, in the caller's proto too."""
        summary = _as_summary(summary)
        for value in summary.value:
            # TF 1.15 tests `not value.metadata`, never true of a message: a tag counts as
            # seen from its first value, with metadata or not.
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
            else:
                self._seen_summary_tags.add(value.tag)
        self.add_event(self._event(global_step, summary=summary))

    def add_session_log(self, session_log: Any, global_step: Any = None) -> None:
        self.add_event(self._event(global_step, session_log=session_log))

    def add_graph(self, graph: Any, global_step: Any = None, graph_def: Any = None) -> None:
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        given = graph if graph is not None else graph_def
        if isinstance(given, graph_pb2.GraphDef):
            gd = given
        elif hasattr(given, "as_graph_def"):
            gd = given.as_graph_def(add_shapes=True)
        else:
            raise TypeError(
                "The passed graph must be an instance of `Graph` or the deprecated `GraphDef`"
            )
        self.add_event(self._event(global_step, graph_def=gd.SerializeToString()))

    def add_meta_graph(self, meta_graph_def: Any, global_step: Any = None) -> None:
        self.add_event(self._event(global_step, meta_graph_def=meta_graph_def.SerializeToString()))

    def add_run_metadata(self, run_metadata: Any, tag: str, global_step: Any = None) -> None:
        tagged = event_pb2.TaggedRunMetadata(tag=tag, run_metadata=run_metadata.SerializeToString())
        self.add_event(self._event(global_step, tagged_run_metadata=tagged))

    # ---- lifecycle ---------------------------------------------------------------------
    def flush(self) -> None:
        self._warn_if_event_writer_is_closed()
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()
        self._closed = True

    def __enter__(self) -> FileWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class FileWriterCache:
    """One FileWriter per directory, shared by the hooks that write there."""

    _cache: dict[str, FileWriter] = {}
    _lock = threading.Lock()

    @staticmethod
    def get(logdir: str) -> FileWriter:
        with FileWriterCache._lock:
            writer = FileWriterCache._cache.get(logdir)
            if writer is None:
                writer = FileWriter(logdir, graph=get_default_graph())
                FileWriterCache._cache[logdir] = writer
            else:
                writer.reopen()
            return writer

    @staticmethod
    def clear() -> None:
        with FileWriterCache._lock:
            for w in FileWriterCache._cache.values():
                w.close()
            FileWriterCache._cache.clear()


SummaryWriterCache = FileWriterCache


def _hand_to_os(writer: EventsWriter) -> None:
    """Writes the file's buffered records to the OS, without fsync."""
    file = getattr(getattr(writer, "_py_recordio_writer", None), "_writer", None)
    if file is not None and hasattr(file, "flush"):
        file.flush()
    else:  # another tensorboardX layout: a full flush is still correct, only slower
        writer.flush()


# The hooks' writers stay open for the process; close them (flushing) when it exits.
atexit.register(FileWriterCache.clear)

__all__ = [
    "Event",
    "EventFileWriter",
    "FileWriter",
    "FileWriterCache",
    "SessionLog",
    "Summary",
    "SummaryWriterCache",
]
