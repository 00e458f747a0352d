"""FileWriter.event_writer, TF's EventFileWriter under a FileWriter: the events file of the
log directory, written through it directly too; a closed FileWriter warns (once, as TF's
warnings) that what is asked of it does nothing until reopen(), which writes again."""

from __future__ import annotations

import warnings
from pathlib import Path

import tfcluster as tf


def _scalar(tag: str, value: float) -> tf.summary.Summary:
    return tf.summary.Summary(value=[tf.summary.Summary.Value(tag=tag, simple_value=value)])


def _steps(logdir: Path) -> list[int]:
    return sorted(
        e.step
        for path in logdir.iterdir()
        for e in tf.train.summary_iterator(str(path))
        if e.HasField("summary")
    )


def test_event_writer_is_the_directorys_events_file(tmp_path: Path) -> None:
    writer = tf.summary.FileWriter(str(tmp_path))
    assert type(writer.event_writer).__name__ == "EventFileWriter"
    assert writer.event_writer.get_logdir() == str(tmp_path)
    writer.add_summary(_scalar("a", 1.0), 1)
    event = tf.Event(wall_time=1.0, step=2, summary=_scalar("a", 2.0))
    writer.event_writer.add_event(event)
    writer.event_writer.flush()
    assert _steps(tmp_path) == [1, 2]
    writer.close()


def test_a_closed_writer_warns_and_writes_after_reopen(tmp_path: Path) -> None:
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_summary(_scalar("a", 1.0), 1)
    writer.close()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        writer.add_summary(_scalar("a", 2.0), 2)
        writer.flush()
    assert [str(w.message) for w in caught] == [
        "Attempting to use a closed FileWriter. The operation will be a noop unless the "
        "FileWriter is explicitly reopened."
    ] * 2
    writer.reopen()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        writer.add_summary(_scalar("a", 3.0), 3)
    assert caught == []
    writer.close()
    assert _steps(tmp_path) == [1, 3]
