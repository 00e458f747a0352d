"""Frames of TF1 while loops in a graph (runtime/loop_frames.py): which frame each node runs
in, graphs whose frames do not fit refused, and loops kept on one task by the master."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tfcluster.runtime.graph_ir import Node
from tfcluster.runtime.loop_frames import assign_frames, keep_loops_on_one_task

W = "/job:worker/replica:0/task:0"
P = "/job:ps/replica:0/task:0"


def _loop() -> dict[str, Node]:
    """x -> Enter -> Merge <- NextIteration <- body; Merge -> Switch(LoopCond) -> Exit -> y."""
    nodes = [
        Node("x", "Const", [], [], ""),
        Node("limit", "Const", [], [], ""),
        Node("enter", "Enter", [("x", 0)], [], "", {"frame_name": b"f"}),
        Node("enter_limit", "Enter", [("limit", 0)], [], "", {"frame_name": b"f"}),
        Node("merge", "Merge", [("enter", 0), ("next", 0)], [], ""),
        Node("less", "Less", [("merge", 0), ("enter_limit", 0)], [], ""),
        Node("cond", "LoopCond", [("less", 0)], [], ""),
        Node("switch", "Switch", [("merge", 0), ("cond", 0)], [], ""),
        Node("body", "Identity", [("switch", 1)], [], ""),
        Node("next", "NextIteration", [("body", 0)], [], ""),
        Node("exit", "Exit", [("switch", 0)], [], ""),
        Node("y", "Identity", [("exit", 0)], [], ""),
    ]
    return {n.name: n for n in nodes}


def test_nodes_between_enter_and_exit_are_in_the_loop_frame() -> None:
    nodes = _loop()
    frames = assign_frames(nodes, list(nodes))
    assert frames["x"] == frames["enter"] == frames["y"] == ()
    assert frames["merge"] == frames["body"] == frames["exit"] == ("f",)


def test_a_loop_placed_over_two_tasks_moves_to_the_task_most_of_it_is_on() -> None:
    nodes = _loop()
    placement = {name: f"{W}/device:CPU:0" for name in nodes}
    placement["body"] = placement["enter_limit"] = f"{P}/device:CPU:0"
    placement["x"] = f"{P}/device:CPU:0"  # outside the loop: stays
    moved = keep_loops_on_one_task(nodes, list(nodes), (), placement)
    assert moved["body"] == moved["enter_limit"] == f"{W}/device:CPU:0"
    assert moved["x"] == f"{P}/device:CPU:0"


def test_a_cond_switch_goes_to_the_task_of_its_readers() -> None:
    nodes = {
        "v": Node("v", "Const", [], [], ""),
        "p": Node("p", "Placeholder", [], [], ""),
        "s": Node("s", "Switch", [("v", 0), ("p", 0)], [], ""),
        "a": Node("a", "Identity", [("s", 0)], [], ""),
        "b": Node("b", "Identity", [("s", 1)], [], ""),
        "m": Node("m", "Merge", [("a", 0), ("b", 0)], [], ""),
    }
    placement = {name: f"{W}/device:CPU:0" for name in nodes}
    placement["s"] = placement["v"] = f"{P}/device:CPU:0"
    moved = keep_loops_on_one_task(nodes, list(nodes), ("p:0",), placement)
    assert moved["s"] == f"{W}/device:CPU:0" and moved["v"] == f"{P}/device:CPU:0"


def test_frames_that_do_not_fit_are_invalid_argument() -> None:
    nodes = _loop()
    nodes["stray"] = Node("stray", "Exit", [("x", 0)], [], "")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Exit node 'stray'"):
        assign_frames(nodes, list(nodes))
    nodes = _loop()
    nodes["body"] = Node("body", "Add", [("switch", 1), ("x", 0)], [], "")
    with pytest.raises(tf.errors.InvalidArgumentError, match="inputs from different frames"):
        assign_frames(nodes, list(nodes))
