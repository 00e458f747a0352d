"""Event files named as TF 1.15 names them: events.out.tfevents.<seconds, 10 digits>.<host><suffix>.

TF opens that name whatever is there, so a second writer started in the same second in the same
directory truncates the first one's file. Here the second gets `.<pid>.<n>` before its suffix
instead, and both files survive; the usual single writer gets exactly TF's name.
"""

from __future__ import annotations

import itertools
import os
import socket
import threading
import time
from typing import Any

from tensorboardX.event_file_writer import EventsWriter
from tensorboardX.record_writer import RecordWriter

from tfcluster.protos import event_pb2

_lock = threading.Lock()
_taken: set[str] = set()  # names this process opened: a file may not be on disk yet (remote fs)
_ids = itertools.count()


class _NamedEventsWriter(EventsWriter):
    """tensorboardX's EventsWriter on a file name chosen by the caller (its own __init__ makes
    the name itself, from a time it reads on its own)."""

    def __init__(self, file_name: str) -> None:
        self._file_name = file_name
        self._num_outstanding_events = 0
        self._py_recordio_writer = RecordWriter(file_name)
        self._event = event_pb2.Event(wall_time=time.time(), file_version="brain.Event:2")
        self._lock = threading.Lock()
        self.write_event(self._event)
        self.flush()  # as TF: the file's first record is on disk as soon as it exists

    def write_event(self, event: Any) -> None:
        """Appends an Event of TF's wire format (tf.Event, tfcluster.protos' class)."""
        self._write_serialized_event(event.SerializeToString())


def open_events_file(logdir: str, suffix: str = "") -> EventsWriter:
    """A new event file in `logdir` (which must exist), starting with the file_version event."""
    prefix = os.path.join(logdir, "events.out.tfevents.")
    with _lock:
        stamp = f"{int(time.time()):010d}.{socket.gethostname()}"
        name = f"{prefix}{stamp}{suffix}"
        if name in _taken or os.path.exists(name):
            name = f"{prefix}{stamp}.{os.getpid()}.{next(_ids)}{suffix}"
        _taken.add(name)
        return _NamedEventsWriter(name)
