"""TF1's names for the gradients of a v1 while loop's invariants (the tensors its cond and
body read from outside: an RNN cell's kernel and bias).

TF1 gives each such tensor one Enter, made when the first op of the loop that reads it is
built, in that op's name scope: `<op>/Enter` (`<op>/Enter_1`, ... for its further new
inputs). Its gradient is the Exit of the accumulator that _EnterGrad builds in the scope
`<gradients>/<op>/Enter_grad`: `b_acc_3` (after a Const, an Enter and a Merge of that name)
where the tensor's shape is known, `b_acc_2` where the zeros come from its shape; for
IndexedSlices the Exits of the indices, values and dense shape: `b_acc_7`, `b_acc_8`,
`b_acc_9` (`b_acc_6`, `b_acc_7`, `b_acc_8` where the rows' width is unknown). Programs print
these names (optimizer.compute_gradients's pairs) and look tensors up by them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework.func_graph import ARG_OPS, FunctionBody, parse_function

_LOOPS = ("While", "StatelessWhile")


def enter_names(
    functions: Sequence[FunctionBody], num_vars: int, wanted: Sequence[int]
) -> dict[int, str]:
    """Per argument position of `wanted` (captures: positions from num_vars on), the name
    of TF1's Enter for it: the functions (cond, then body: TF1 builds them in that order)
    read their arguments by position. In the order TF1's gradient reaches them: the Enter
    made last first. A capture an inner loop reads takes its name from the op that reads
    it there (TF1 makes the outer Enter first, the inner one next: `<op>/Enter_1`)."""
    names: dict[int, str] = {}
    made: dict[str, int] = {}
    for fn in functions:
        position_of = {name: i for i, (name, *_rest) in enumerate(fn.args) if i >= num_vars}
        for node in fn.graph_def.node:
            if node.op in ARG_OPS:
                continue
            for index, inp in enumerate(node.input):
                if inp.startswith("^"):
                    continue
                position = position_of.get(inp.split(":")[0])
                if position is None or position in names:
                    continue
                reader = _reader(node, index)
                if reader is None:
                    names[position] = ""
                    continue
                count = made.get(reader, 0)
                names[position] = f"{reader}/Enter" + (f"_{count}" if count else "")
                made[reader] = count + 1 + _inner_enters(node, reader)
    keep = set(wanted)
    order = [p for p in names if p in keep and names[p]]
    return {p: names[p] for p in reversed(order)}


def _reader(node: Any, index: int) -> str | None:
    """The op of TF1's graph that reads input `index` of `node` first: the node itself, or
    for a functional While, the op reading that capture in its cond or body (None where
    TF1's reader is no such op: an inner loop's variable)."""
    if node.op not in _LOOPS:
        return node.name
    num_inner_vars = len(node.attr["T"].list.type)
    if index < num_inner_vars:
        return None
    for attr in ("cond", "body"):
        inner = parse_function(node.attr[attr].func, f"{node.name} {attr}")
        arg_name = inner.args[index][0]
        for inner_node in inner.graph_def.node:
            if inner_node.op in ARG_OPS:
                continue
            for j, inp in enumerate(inner_node.input):
                if not inp.startswith("^") and inp.split(":")[0] == arg_name:
                    return _reader(inner_node, j)
    return None


def _inner_enters(node: Any, reader: str) -> int:
    """The inner loops' own Enters TF1 makes in the reader's scope after the outer one."""
    return 0 if node.op not in _LOOPS or reader == node.name else 1


def dense_gradient_name(shape_fully_defined: bool) -> str:
    return "b_acc_3" if shape_fully_defined else "b_acc_2"


def slices_gradient_names(rows_fully_defined: bool) -> tuple[str, str, str]:
    """indices, values, dense shape."""
    first = 7 if rows_fully_defined else 6
    return (f"b_acc_{first}", f"b_acc_{first + 1}", f"b_acc_{first + 2}")
