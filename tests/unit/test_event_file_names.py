"""FileWriter names its event file as TF 1.15 does (events.out.tfevents.<10-digit seconds>.<host>
plus the filename_suffix), makes it on the first event (at once when a suffix is given), and a
second writer in the same directory and second keeps its own file instead of truncating the first
(which TF does)."""

from __future__ import annotations

import os
import re
import socket
from pathlib import Path

import tfcluster as tf
from tfcluster.lib.io.summary_iterator import summary_iterator


def _event_files(logdir: Path) -> list[str]:
    return sorted(f for f in os.listdir(logdir) if f.startswith("events."))


def _summary(value: float) -> tf.Summary:
    return tf.Summary(value=[tf.Summary.Value(tag="loss", simple_value=value)])


def test_event_file_is_named_by_seconds_and_host_only(tmp_path: Path) -> None:
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_summary(_summary(1.0), 1)
    writer.close()
    host = re.escape(socket.gethostname())
    [name] = _event_files(tmp_path)
    assert re.fullmatch(rf"events\.out\.tfevents\.\d{{10}}\.{host}", name), name


def test_filename_suffix_ends_the_name_and_makes_the_file_at_once(tmp_path: Path) -> None:
    tf.summary.FileWriter(str(tmp_path / "plain"))
    assert _event_files(tmp_path / "plain") == []
    writer = tf.summary.FileWriter(str(tmp_path / "suffixed"), filename_suffix=".eval")
    [name] = _event_files(tmp_path / "suffixed")
    assert re.fullmatch(r"events\.out\.tfevents\.\d{10}\.[^/]+\.eval", name), name
    assert [e.file_version for e in summary_iterator(str(tmp_path / "suffixed" / name))] == [
        "brain.Event:2"
    ]
    writer.close()


def test_two_writers_in_one_second_keep_both_files(tmp_path: Path) -> None:
    first = tf.summary.FileWriter(str(tmp_path))
    second = tf.summary.FileWriter(str(tmp_path))
    first.add_summary(_summary(1.0), 1)
    second.add_summary(_summary(2.0), 2)
    first.close()
    second.close()
    files = _event_files(tmp_path)
    assert len(files) == 2
    values = sorted(
        v.simple_value
        for f in files
        for e in summary_iterator(str(tmp_path / f))
        for v in e.summary.value
    )
    assert values == [1.0, 2.0]
