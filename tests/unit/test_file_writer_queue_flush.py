"""FileWriter: a full queue (max_queue events) makes the events readable without an fsync;
fsync comes with flush(), close() and flush_secs, as TF 1.15 syncs its event files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import tfcluster as tf


def _scalar(tag: str, value: float) -> tf.summary.Summary:
    return tf.summary.Summary(value=[tf.summary.Summary.Value(tag=tag, simple_value=value)])


def _steps_on_disk(logdir: Path) -> list[int]:
    (path,) = [p for p in logdir.iterdir() if "tfevents" in p.name]
    return [e.step for e in tf.train.summary_iterator(str(path)) if e.HasField("summary")]


def _count_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """os.fsync still syncs; the list records each file descriptor it synced."""
    syncs: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        syncs.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return syncs


def test_a_full_queue_hands_events_to_readers_without_fsync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    syncs = _count_fsyncs(monkeypatch)
    writer = tf.summary.FileWriter(str(tmp_path), max_queue=3, flush_secs=3600)
    for step in range(7):
        writer.add_summary(_scalar("loss", float(step)), step)
    assert _steps_on_disk(tmp_path) == [0, 1, 2, 3, 4, 5]  # two full queues, the 7th waits
    assert len(syncs) == 1  # only the file's creation, as TF's EventsWriter syncs its first record
    writer.flush()
    assert _steps_on_disk(tmp_path) == list(range(7))
    assert len(syncs) == 2
    writer.close()


def test_flush_secs_elapsed_syncs_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    syncs = _count_fsyncs(monkeypatch)
    writer = tf.summary.FileWriter(str(tmp_path), max_queue=100, flush_secs=0)
    writer.add_summary(_scalar("loss", 1.0), 1)
    assert _steps_on_disk(tmp_path) == [1]
    assert len(syncs) == 2  # the file's creation, then flush_secs
    writer.close()
