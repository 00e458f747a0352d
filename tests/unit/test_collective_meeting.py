"""The group leader's meeting table of collective ops (runtime/collective_meeting.py), on its
own: members' parts meet round by round, reduce / gather / broadcast as TF's collective ops
do, disagreements fail every member with TF's error class, a member whose step gives up takes
its part back, and a member's late (older) run never pairs with the others' next run."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import pytest
from tfcluster.framework import errors
from tfcluster.runtime.collective_meeting import MeetingTable, Part, deadline_check


def _part(device: str, value: Any = None, kind: str = "reduce", **kw: Any) -> Part:
    args: dict[str, Any] = {"group_key": 1, "group_size": 2, "instance_key": 1}
    args.update(kw)
    if kind == "reduce":
        args.setdefault("merge_op", "Add")
        args.setdefault("final_op", "Id")
    return Part(kind=kind, device=device, value=value, **args)


def _meet(table: MeetingTable, parts: list[Part], timeout: float = 5.0) -> list[Any]:
    out: list[Any] = [None] * len(parts)

    def run(i: int) -> None:
        try:
            out[i] = table.join(parts[i], deadline_check(time.monotonic() + timeout, bool))
        except errors.OpError as e:
            out[i] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(parts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout + 5)
    return out


def test_reduce_gather_and_broadcast() -> None:
    table = MeetingTable()
    a, b = np.array([1.0, 2.0], np.float32), np.array([10.0, 20.0], np.float32)
    got = _meet(table, [_part("/d:1", b, final_op="Div"), _part("/d:0", a, final_op="Div")])
    for g in got:
        np.testing.assert_array_equal(g, [5.5, 11.0])
    got = _meet(
        table,
        [
            _part("/d:1", b[None], "gather", instance_key=2),
            _part("/d:0", a[None], "gather", instance_key=2),
        ],
    )
    for g in got:  # in the order of the devices' names
        np.testing.assert_array_equal(g, [[1.0, 2.0], [10.0, 20.0]])
    got = _meet(
        table,
        [
            _part("/d:0", a, "bcast_send", instance_key=3, shape=(2,)),
            _part("/d:1", None, "bcast_recv", instance_key=3, shape=(2,)),
        ],
    )
    for g in got:
        np.testing.assert_array_equal(g, a)


def test_disagreements_fail_every_member_with_tfs_classes() -> None:
    table = MeetingTable()
    got = _meet(table, [_part("/d:0", np.zeros(2)), _part("/d:1", np.zeros(3))])
    assert all(isinstance(g, errors.InvalidArgumentError) for g in got)
    assert "Shape mismatch in the collective instance 1" in str(got[0])
    with pytest.raises(errors.InternalError, match="has group_size 3"):
        table.join(_part("/d:0", np.zeros(2), group_size=3), deadline_check(None, bool))
    with pytest.raises(errors.InternalError, match="already has its 2 devices"):
        table.join(_part("/d:9", np.zeros(2)), deadline_check(None, bool))


def test_a_member_that_gives_up_takes_its_part_back() -> None:
    table = MeetingTable()
    with pytest.raises(errors.DeadlineExceededError):
        table.join(_part("/d:0", np.ones(1)), deadline_check(time.monotonic() + 0.2, bool))
    got = _meet(table, [_part("/d:0", np.full(1, 2.0)), _part("/d:1", np.full(1, 3.0))])
    assert [float(g[0]) for g in got] == [5.0, 5.0]


def test_a_late_older_run_never_pairs_with_the_next_one() -> None:
    table = MeetingTable()
    got = _meet(
        table, [_part("/d:0", np.ones(1), attempt=10), _part("/d:1", np.ones(1), attempt=10)]
    )
    assert [float(g[0]) for g in got] == [2.0, 2.0]
    with pytest.raises(errors.CancelledError, match="later run"):
        table.join(_part("/d:0", np.ones(1), attempt=5), deadline_check(None, bool))
    # A newer run takes the place of an older one still waiting.
    stale = _part("/d:0", np.full(1, 100.0), attempt=20)
    waiting = threading.Thread(target=_meet, args=(table, [stale], 2.0))
    waiting.start()
    time.sleep(0.2)
    got = _meet(
        table,
        [_part("/d:0", np.full(1, 1.0), attempt=30), _part("/d:1", np.full(1, 2.0), attempt=30)],
    )
    waiting.join(5)
    assert [float(g[0]) for g in got] == [3.0, 3.0]
