"""Which while-loop frame each node of a TF1 graph runs in (TF's BuildControlFlowInfo).

A node's frame is its inputs' frame, except past an Enter (the Enter's `frame_name`, a child
of the Enter's own frame) and past an Exit (the parent of the Exit's frame). Frames are named
here by their path from the root: () for the root, ("outer/while_context",
"outer/inner/while_context") for a loop in a loop. A graph whose frames do not fit together
(an Exit with no Enter before it, a node reading from two frames) is refused with TF's
InvalidArgumentError before anything runs; so is a loop no Enter leads into (its Merge is never
fed: it would wait forever).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Mapping

from tfcluster.framework import errors
from tfcluster.runtime.graph_ir import Node

ENTER_OPS = frozenset({"Enter", "RefEnter"})
EXIT_OPS = frozenset({"Exit", "RefExit"})
NEXT_ITERATION_OPS = frozenset({"NextIteration", "RefNextIteration"})
MERGE_OPS = frozenset({"Merge", "RefMerge"})
SWITCH_OPS = frozenset({"Switch", "RefSwitch"})
# Op types that make dead tensors or frames: a step holding any of them needs the frame
# executor (runtime/frame_executor.py).
CONTROL_FLOW_OPS = (
    ENTER_OPS
    | EXIT_OPS
    | NEXT_ITERATION_OPS
    | MERGE_OPS
    | SWITCH_OPS
    | {"LoopCond", "ControlTrigger"}
)

Frame = tuple[str, ...]
ROOT: Frame = ()


def has_control_flow(nodes: Iterable[Node]) -> bool:
    return any(n.op in CONTROL_FLOW_OPS for n in nodes)


def frame_label(frame: Frame) -> str:
    return frame[-1] if frame else ""


def assign_frames(
    nodes: Mapping[str, Node], members: Collection[str], fed: Collection[str] = ()
) -> dict[str, Frame]:
    """node name -> its frame, for every node in `members` (edges from fed tensors and from
    nodes outside `members` do not count: those values come from the root frame)."""
    member_set = set(members)
    fed_set = set(fed)
    consumers: dict[str, list[str]] = {n: [] for n in member_set}
    sources: list[str] = []
    for name in members:
        node = nodes[name]
        has_input = False
        for src, idx in node.inputs:
            if src in member_set and f"{src}:{idx}" not in fed_set:
                consumers[src].append(name)
                has_input = True
        for src in node.control_inputs:
            if src in member_set:
                consumers[src].append(name)
                has_input = True
        if not has_input:
            sources.append(name)
    frame_of: dict[str, Frame] = dict.fromkeys(sources, ROOT)
    via: dict[str, str] = {}  # node -> the input that gave it its frame
    outside: list[str] = []  # NextIteration nodes found outside every loop
    queue = deque(sources)
    while queue:
        name = queue.popleft()
        node = nodes[name]
        frame = frame_of[name]
        if node.op in EXIT_OPS and not frame:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Exit node '{name}' is not inside a while loop: no Enter node leads to it",
            )
        if node.op in NEXT_ITERATION_OPS and not frame:
            outside.append(name)
        out_frame = output_frame(node, frame)
        for dst in consumers[name]:
            known = frame_of.get(dst)
            if known is None:
                frame_of[dst] = out_frame
                via[dst] = name
                queue.append(dst)
            elif known != out_frame:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"node {dst} has inputs from different frames. The input node {name} is "
                    f"in frame '{frame_label(out_frame)}'. The input node {via.get(dst, dst)} "
                    f"is in frame '{frame_label(known)}'.",
                )
    if outside:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"NextIteration node '{outside[0]}' is not inside a while loop: no Enter node "
            "leads to it",
        )
    never = sorted(member_set - frame_of.keys())
    if never:
        merges = [n for n in never if nodes[n].op in MERGE_OPS]
        raise errors.InvalidArgumentError(
            None,
            None,
            f"{len(never)} nodes can never run: they wait on each other in a cycle no Enter "
            f"leads into (Merge {merges[:3] or never[:3]} is never fed); nodes: {never[:5]}",
        )
    return frame_of


def keep_loops_on_one_task(
    nodes: Mapping[str, Node],
    needed: Collection[str],
    fed: Collection[str],
    placement: Mapping[str, str],
) -> dict[str, str]:
    """The placement with every while loop's nodes (its Enters, body, Exits and the loops
    inside it) on one task: the task most of them were placed on. Values cross tasks only
    into and out of a loop, never between its iterations. And each cond's Switch with the
    nodes reading it. Nodes moved go to that task's CPU."""
    moved = dict(placement)
    if not has_control_flow(nodes[n] for n in needed):
        return moved
    frame_of = assign_frames(nodes, needed, fed)
    loops: dict[str, list[str]] = {}
    for name in needed:
        frame = frame_of[name]
        if frame == ROOT:
            frame = output_frame(nodes[name], frame)  # a loop's Enter goes with the loop
        if frame != ROOT:
            loops.setdefault(frame[0], []).append(name)
    for members in loops.values():
        target = _most_common([_task(placement[m]) for m in members])
        for m in members:
            if _task(placement[m]) != target:
                moved[m] = f"{target}/device:CPU:0"
    _switches_to_their_consumers(nodes, needed, frame_of, moved)
    return moved


def _switches_to_their_consumers(
    nodes: Mapping[str, Node],
    needed: Collection[str],
    frame_of: Mapping[str, Frame],
    placement: dict[str, str],
) -> None:
    """A cond's Switch goes to the task of the nodes reading it (TF colocates it with its data
    input, often a variable's read on a ps): the value crossing tasks is then the live input,
    not an output the untaken branch leaves dead. A RefSwitch stays with its variable."""
    consumers: dict[str, list[str]] = {}
    for name in needed:
        node = nodes[name]
        for src in {s for s, _ in node.inputs} | set(node.control_inputs):
            if src in frame_of and nodes[src].op == "Switch" and frame_of[src] == ROOT:
                consumers.setdefault(src, []).append(name)
    for switch, readers in consumers.items():
        target = _most_common([_task(placement[r]) for r in readers])
        if _task(placement[switch]) != target:
            placement[switch] = f"{target}/device:CPU:0"


def _most_common(tasks: list[str]) -> str:
    """The task named most often (the first named, of equals)."""
    votes: dict[str, int] = {}
    for task in tasks:
        votes[task] = votes.get(task, 0) + 1
    return max(votes, key=lambda t: (votes[t], -tasks.index(t)))


def _task(device: str) -> str:
    i = device.find("/device:")
    return device if i < 0 else device[:i]


def output_frame(node: Node, frame: Frame) -> Frame:
    """The frame a node's outputs go to, the node running in `frame`."""
    if node.op in ENTER_OPS:
        return (*frame, _text(node.attrs.get("frame_name", "")))
    if node.op in EXIT_OPS:
        return frame[:-1]
    return frame


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


__all__ = [
    "CONTROL_FLOW_OPS",
    "ENTER_OPS",
    "EXIT_OPS",
    "MERGE_OPS",
    "NEXT_ITERATION_OPS",
    "ROOT",
    "SWITCH_OPS",
    "Frame",
    "assign_frames",
    "frame_label",
    "has_control_flow",
    "keep_loops_on_one_task",
    "output_frame",
]
