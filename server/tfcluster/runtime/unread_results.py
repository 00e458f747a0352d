"""Nodes whose results no node of the step reads become NoOps, as TensorFlow's dependency
optimizer (grappler) turns them.

tf.gradients' gates (tf.tuple under GATE_OP, the optimizers' default) make every gradient of
an op wait on all of that op's input gradients, so a gradient nobody uses still runs: the conv
net's first layer computed the gradient of its input images (a 5x5 transposed convolution of
the whole batch, ~7 ms of CPU) only for the filter gradient's gate to wait on it. TF's
dependency optimizer changes such a node, whose outputs are read by no node of the pruned
step and which is free of side effects, into a NoOp that keeps its data inputs as control
inputs: what it waited on, and its deadness in a cond, stay as they were. The fanins whose
only readers were such nodes follow in turn.

Kept as they are, as in TF: fed, fetched or targeted nodes, stateful ops and ops that take a
reference (they change state), Placeholders, control-flow ops (frames and deadness), ops with
no outputs, and Const/Identity nodes (nothing to save; TF handles those by other rules). A
node that reads a Switch's output is kept too: as a control edge that read would no longer
carry the branch's deadness.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence

from tfcluster.framework import op_def_registry, op_signatures
from tfcluster.runtime.graph_ir import Node, split_tensor_name

# Never rewritten: they have effects (Assert, CheckNumerics), carry control flow or step
# arguments, or are already what the rewrite makes (TF's do_not_rewrite_ops and frame ops).
_KEEP = frozenset(
    {
        "Assert",
        "CheckNumerics",
        "ControlTrigger",
        "Const",
        "Enter",
        "Exit",
        "Identity",
        "IdentityN",
        "LoopCond",
        "Merge",
        "NextIteration",
        "NoOp",
        "Placeholder",
        "PlaceholderV2",
        "PlaceholderWithDefault",
        "RefEnter",
        "RefExit",
        "RefMerge",
        "RefNextIteration",
        "RefSwitch",
        "Switch",
        "_Arg",
        "_Recv",
        "_Retval",
        "_Send",
    }
)


_SWITCHES = frozenset({"Switch", "RefSwitch"})


def _free_of_side_effects(op: str) -> bool:
    if op in _KEEP or "Queue" in op:
        return False
    op_def = op_def_registry.lookup(op)
    if op_def is None or op_def.stateful or op_def.ref_inputs or op_def.ref_outputs:
        return False
    # TF 1.15's own op definition too (its statefulness, where tfcluster's table is less
    # strict); ops TF 1.15 does not define (tfcluster's own) are kept.
    sig = op_signatures.lookup(op)
    return sig is not None and not sig.stateful and len(sig.outputs) > 0


def unread_to_noops(
    nodes: Mapping[str, Node],
    needed: Collection[str],
    feeds: Sequence[str],
    fetches: Sequence[str],
    targets: Sequence[str],
) -> dict[str, Node]:
    """NoOps (same name, device and colocation) standing for the `needed` nodes whose
    results no needed node reads, by name."""
    readers: dict[str, set[str]] = defaultdict(set)
    for name in needed:
        for src, _ in nodes[name].inputs:
            readers[src].add(name)
    pinned = {split_tensor_name(t)[0] for t in (*feeds, *fetches)} | set(targets)
    out: dict[str, Node] = {}
    pending = [n for n in needed if not readers.get(n)]
    while pending:
        name = pending.pop()
        node = nodes[name]
        if name in out or name in pinned or readers.get(name):
            continue
        if not _free_of_side_effects(node.op):
            continue
        if any(nodes[src].op in _SWITCHES for src, _ in node.inputs):
            # A control edge from a Switch is live whichever branch is taken: the node's
            # deadness (its branch not taken) would be lost.
            continue
        controls = list(dict.fromkeys([*(src for src, _ in node.inputs), *node.control_inputs]))
        attrs = {"_class": node.attrs["_class"]} if "_class" in node.attrs else {}
        out[name] = Node(name, "NoOp", [], controls, node.device, attrs)
        for src, _ in node.inputs:
            readers[src].discard(name)
            if not readers[src]:
                pending.append(src)
    return out
