"""How many ops TF1's gradient of a v1 tf.while_loop makes, and the names it takes.

TF 1.15 differentiates a while_loop built of Enter/Merge/Switch/Exit ops with a second loop
of the same ops (control_flow_state.py, control_flow_grad.py). tfcluster differentiates its
one While op with another While op instead, so it makes other ops; but op seeds are the
graph's op count, and later op names count the names already taken, so the gradient must
count and reserve as TF1's does. The numbers here follow TF 1.15's construction, piece by
piece (they are not totals of a recorded case).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from tfcluster.framework.graph import Graph, Operation, Tensor

# GradLoopState's counters, made in the gradients scope when tf.gradients starts (one state
# per forward loop whose Exit lies between xs and ys), in TF 1.15's creation order.
# AddForwardLoopCounter: Const, Enter, Merge, Switch, `switch + 1` (its Const "y" inside the
# Add scope, which the Add op then takes), NextIteration, Exit. AddBackpropLoopCounter: Const,
# Enter, Merge, GreaterEqual (and its Enter of the Const into the gradient loop), LoopCond,
# Switch, Sub, NextIteration, Exit.
_LOOP_COUNTER_NAMES = (
    "f_count",
    "f_count",
    "Merge",
    "Switch",
    "Add",
    "Add/y",
    "NextIteration",
    "f_count",
    "b_count",
    "b_count",
    "Merge",
    "GreaterEqual",
    "GreaterEqual/Enter",
    "b_count",
    "Switch",
    "Sub",
    "NextIteration",
    "b_count",
)

# Per loop variable whose gradient enters the gradient loop: _ExitGrad's Enter ("b_exit"),
# _SwitchGrad's Merge ("b_switch") and, once the body's gradient comes back, its NextIteration;
# _MergeGrad's Switch and _EnterGrad's Exit.
OPS_PER_LOOP_VARIABLE = 5
# With gate_gradients (an optimizer's minimize()), _MergeGrad's Switch gives the Merge two
# gradients, which TF1 gates: a NoOp and an Identity of each.
_OPS_TO_GATE_MERGE_GRAD = 3


def loop_variable_ops(gating: bool) -> int:
    """TF1's ops per loop variable whose gradient enters the gradient loop."""
    return OPS_PER_LOOP_VARIABLE + (_OPS_TO_GATE_MERGE_GRAD if gating else 0)


# Per forward value the body's gradient reads from the iteration it undoes (a history stack):
# the max-size Const, StackV2 ("f_acc"), the Enter of its handle into the forward loop,
# StackPushV2, StackPopV2 and the Enter of the handle into the gradient loop.
_OPS_PER_KEPT_VALUE = 6
# One ControlTrigger ("b_sync") per gradient loop orders the pops, made with the first.
_OPS_FOR_FIRST_KEPT_VALUE = 1
# Per loop invariant the body's gradient reads: its Enter into the gradient loop.
_OPS_PER_INVARIANT_READ = 1
# Per stack of an inner loop, per loop it reaches through: the Enter of its handle into the
# forward loop and of the pop's handle into the gradient loop.
_OPS_PER_NESTING_LEVEL = 2
# A Shape, Size or Rank of a forward value TF1 moves into the forward loop
# (WhileContext.AddOp), so the gradient loop reads its result from a stack of its own.
_SHAPE_OF = frozenset({"Shape", "Size", "Rank"})
_LOOP_TYPES = frozenset({"While", "StatelessWhile"})


def forward_read_ops(
    made: Sequence[Operation],
    kept: Collection[Tensor],
    invariants: Collection[Tensor],
    inner_lists: Collection[Tensor] = (),
    consts: Collection[Tensor] = (),
) -> int:
    """The ops TF1 makes for a gradient loop body (whose ops are `made`) to read forward
    values: tfcluster's body reads `kept` (per-iteration values), `invariants` (loop
    invariants) and `inner_lists` (an inner loop's kept values, one list per iteration of
    this loop) as arguments, and makes the forward body's constants `consts` again. TF1
    keeps an inner loop's values on the inner loop's stacks, whose handles enter this
    forward loop and this gradient loop once more each; it copies a constant into the
    gradient loop, but a Shape of one (a broadcasting gradient's, where another shape is
    unknown) is a forward value like others, kept on a stack."""
    args = set(kept) | set(invariants)
    shaped = args | set(consts)
    shapes = {o for o in made if o.type in _SHAPE_OF and o.inputs and o.inputs[0] in shaped}
    # TF1 keeps a moved Shape's value on a stack when its gradient loop reads it (a Shape
    # no op reads, as the one concat's gradient makes of its first input, gets none).
    read = {t for o in made for t in o.inputs}
    stacked_shapes = sum(o.outputs[0] in read for o in shapes)

    def read_otherwise(arg: Tensor) -> bool:
        return any(arg in o.inputs for o in made if o not in shapes)

    def kept_stacks(arg: Tensor) -> int:
        # Each inner loop's gradient keeps the values it reads from this loop on a stack of
        # its own (TF1's history maps are per loop), apart from this body's own reads.
        loops = [o for o in made if o.type in _LOOP_TYPES and arg in o.inputs]
        own = any(arg in o.inputs for o in made if o not in shapes and o not in loops)
        return len(loops) + own

    stacks = sum(kept_stacks(a) for a in kept) + stacked_shapes
    return (
        _OPS_PER_KEPT_VALUE * stacks
        + (_OPS_FOR_FIRST_KEPT_VALUE if stacks else 0)
        + _OPS_PER_INVARIANT_READ * sum(read_otherwise(a) for a in invariants)
        + _OPS_PER_NESTING_LEVEL * len(inner_lists)
        # A constant only shapes read: TF1's Shape reads the forward one, made no copy of.
        - sum(not read_otherwise(c) for c in consts)
    )


def is_v1_while(op: Operation) -> bool:
    """A While op made by tf.while_loop (TF1 builds those of Enter/Exit ops); one imported
    in TF's functional form has no captures of its own (TF 1.15 differentiates those with
    while_v2)."""
    return op.type in ("While", "StatelessWhile") and "Tcaptures" in op.attrs


LOOP_COUNTER_OPS = len(_LOOP_COUNTER_NAMES)  # one op per name


def make_loop_counters(graph: Graph) -> None:
    """Counts and names, in the current name scope, the counters of one loop's
    GradLoopState."""
    for name in _LOOP_COUNTER_NAMES:
        graph.unique_name(name)
    graph._match_tf1_op_count(LOOP_COUNTER_OPS)


def accumulator_ops(shape_fully_defined: bool) -> int:
    """Ops of AddBackpropAccumulator, the gradient of a loop invariant: the zeros it starts
    from (one Const of a known shape, else Shape and zeros' Const and Fill), Enter, Merge,
    Switch, Add, NextIteration, Exit."""
    return (1 if shape_fully_defined else 3) + 6
