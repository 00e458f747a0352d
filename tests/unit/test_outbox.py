"""runtime/outbox.py: messages held during an executor pass go out together, per writer."""

from __future__ import annotations

from typing import Any

import pytest
from support.ports import free_ports
from tfcluster.runtime import outbox


class Peer:
    def __init__(self, fail: bool = False) -> None:
        self.writes: list[list[Any]] = []
        self.fail = fail

    def write(self, messages: list[Any]) -> None:
        if self.fail:
            raise ConnectionResetError("gone")
        self.writes.append(list(messages))


def test_messages_are_held_until_the_flush_then_written_once_per_peer() -> None:
    a, b = Peer(), Peer()
    box, previous = outbox.open_outbox()
    try:
        assert outbox.current() is box
        for m in ("r1", "r2", "r3"):
            box.add(a.write, m)
        box.add(b.write, "x")
        assert a.writes == [] and b.writes == []
        box.flush()
        assert a.writes == [["r1", "r2", "r3"]] and b.writes == [["x"]]
        box.flush()  # nothing held: nothing written
        assert len(a.writes) == 1
        box.add(a.write, "r4")
    finally:
        outbox.close_outbox(box, previous)
    assert a.writes[-1] == ["r4"]  # closing flushes
    assert outbox.current() is previous


def test_a_failing_peer_does_not_keep_the_others_messages() -> None:
    bad, good = Peer(fail=True), Peer()
    box, previous = outbox.open_outbox()
    box.add(bad.write, 1)
    box.add(good.write, 2)
    outbox.close_outbox(box, previous)
    assert good.writes == [[2]]


def test_nested_passes_restore_the_outer_outbox() -> None:
    outer, none = outbox.open_outbox()
    inner, previous = outbox.open_outbox()
    assert previous is outer and outbox.current() is inner
    outbox.close_outbox(inner, previous)
    assert outbox.current() is outer
    outbox.close_outbox(outer, none)
    assert outbox.current() is None


@pytest.mark.timeout(60)
def test_a_chain_of_tensors_between_two_tasks_does_not_hang() -> None:
    """Receives in one pass are held; the executor flushes before it waits, so a chain of
    tensors between two tasks (each needing the other's previous one) completes."""
    import tfcluster as tf

    spec = tf.train.ClusterSpec({"worker": [f"localhost:{p}" for p in free_ports(2)]})
    servers = [tf.train.Server(spec, job_name="worker", task_index=i) for i in range(2)]
    try:
        g = tf.Graph()
        with g.as_default():
            x = tf.constant(1.0)
            for i in range(6):
                with tf.device(f"/job:worker/task:{i % 2}"):
                    x = x * 2.0 + 1.0
        with tf.Session(servers[0].target, graph=g) as sess:
            for _ in range(20):  # the later steps run over direct streams
                assert sess.run(x) == 127.0
    finally:
        for server in servers:
            server.stop()
