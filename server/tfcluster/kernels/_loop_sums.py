"""Sums a while loop carries of per-iteration products, computed once after the loop.

A while loop's gradient carries the gradient of each weight its body reads as a loop
variable, and every iteration adds that iteration's term: an LSTM's kernel gradient gets
concat(x_t, h_t)^T @ dgates_t, its bias gradient sum(dgates_t over the batch). Fifty products
of [384 x 64] @ [64 x 1024] take longer than one of [384 x 3200] @ [3200 x 1024] (BLAS is
more efficient on the big one, and can use every core on it), and each addition reads and
writes the whole sum again. When nothing in the loop reads the sum but its own addition,
the body can hand out the term's factors instead and the loop multiply them once, joined
along the axis the product sums over:

    sum_k A_k^T B_k = [A_1; ...; A_n]^T [B_1; ...; B_n]

The loop variable then goes through the body unchanged. Values agree with the loop's to
float rounding (the same terms, added in another order). Factors kept past CHUNK_BYTES are
multiplied and added at once, so a long loop holds a bounded amount more than before.

A term may also be such products placed side by side (TF's LSTM step splits its kernel,
bias and recurrent kernel per gate, so their gradients are a ConcatV2 of four products, or
an AddN of four StridedSliceGrads of them): placing is linear, so the loop sums each part
apart and places the sums once, with the same ConcatV2 / StridedSliceGrad / AddN kernels
on the same constant shapes, begins, ends and strides.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tfcluster.framework.func_graph import RETVAL_OP
from tfcluster.kernels import _cpu_gemm
from tfcluster.runtime import kernel_table
from tfcluster.runtime.graph_ir import Node

# Kept factors (bytes, all sums of a loop together) from which the loop multiplies what it
# has and starts again.
CHUNK_BYTES = 64 << 20

_ADDS = ("Add", "AddV2")


@dataclass(frozen=True)
class SummedPart:
    """A product (MatMul or BiasAddGrad) whose iterations' values the loop sums."""

    node: Node
    inputs: tuple[str, ...]  # body tensors ('op:idx') it reads, kept per iteration
    axes: tuple[int, ...]  # per input: the axis its iterations' values are joined along


@dataclass(frozen=True)
class LoopSum:
    """Loop variable `var` is `var + term` in every iteration, read by nothing else; the term
    is one summed part, or parts placed by `placing` (linear nodes whose other inputs are
    the constants in `consts`), the last of which makes the term."""

    var: int
    term: Node  # the node making the term
    add: Node
    term_first: bool  # the addition is add(term, var) rather than add(var, term)
    parts: tuple[SummedPart, ...]
    placing: tuple[Node, ...] = ()
    consts: tuple[tuple[str, np.ndarray], ...] = ()

    @property
    def inputs(self) -> tuple[str, ...]:
        return tuple(t for part in self.parts for t in part.inputs)


def _join_axes(term: Node) -> tuple[int, ...] | None:
    """Per input of the term, the axis along which its terms sum (None: not a summed term)."""
    if term.op == "MatMul":
        ta = bool(term.attrs.get("transpose_a", False))
        tb = bool(term.attrs.get("transpose_b", False))
        return (0 if ta else 1, 1 if tb else 0)
    if term.op == "BiasAddGrad":
        return (0,)  # the batch axis, summed whatever the data format
    return None


def _part(
    by_name: dict[str, Node], readers: dict[str, int], src: tuple[str, int]
) -> SummedPart | None:
    """The summed product making body tensor src, when nothing else reads it."""
    node = by_name.get(src[0])
    if node is None or src[1] != 0 or node.control_inputs or readers.get(node.name):
        return None
    axes = _join_axes(node)
    if axes is None or readers.get(f"{node.name}:0") != 1 or len(node.inputs) != len(axes):
        return None
    return SummedPart(node, tuple(f"{s}:{i}" for s, i in node.inputs), axes)


def _const(by_name: dict[str, Node], src: tuple[str, int]) -> np.ndarray | None:
    node = by_name.get(src[0])
    if node is None or node.op != "Const" or src[1] != 0:
        return None
    value = node.attrs.get("value")
    return value if isinstance(value, np.ndarray) else None


def _placed_parts(
    by_name: dict[str, Node], readers: dict[str, int], term: Node
) -> tuple[tuple[SummedPart, ...], tuple[Node, ...], dict[str, np.ndarray]] | None:
    """(parts, placing nodes, their constants) when the term places summed products side by
    side: ConcatV2(parts..., axis) or AddN(StridedSliceGrad(shape, begin, end, strides,
    part)...), every inner node read by the term alone."""
    consts: dict[str, np.ndarray] = {}

    def constant(src: tuple[str, int]) -> bool:
        value = _const(by_name, src)
        if value is not None:
            consts[src[0]] = value
        return value is not None

    if term.control_inputs or len(term.inputs) < 2:
        return None
    if term.op == "ConcatV2":
        if not constant(term.inputs[-1]):
            return None
        parts = [_part(by_name, readers, src) for src in term.inputs[:-1]]
        if any(p is None for p in parts):
            return None
        return tuple(p for p in parts if p is not None), (term,), consts
    if term.op == "AddN":
        placing: list[Node] = []
        found: list[SummedPart] = []
        for src, idx in term.inputs:
            grad = by_name.get(src)
            if (
                grad is None
                or grad.op != "StridedSliceGrad"
                or idx != 0
                or grad.control_inputs
                or readers.get(grad.name)
                or readers.get(f"{grad.name}:0") != 1
                or len(grad.inputs) != 5
                or not all(constant(s) for s in grad.inputs[:4])
            ):
                return None
            part = _part(by_name, readers, grad.inputs[4])
            if part is None:
                return None
            placing.append(grad)
            found.append(part)
        return tuple(found), (*placing, term), consts
    return None


def find_loop_sums(
    nodes: Sequence[Node],
    arg_names: Sequence[str],
    results: Sequence[str],
    num_vars: int,
    cond_reads: set[int],
    kept: Sequence[str],
) -> list[LoopSum]:
    """The loop variables of a body (nodes, its _Arg names by index, its result tensors)
    that are such sums. cond_reads: the arguments the loop's condition reads; kept: body
    tensors the loop keeps for other reasons (a gradient of the loop reads them)."""
    by_name = {n.name: n for n in nodes}
    readers: dict[str, int] = {}  # tensor 'op:idx' or op name (control) -> how many read it
    for n in nodes:
        if n.op == RETVAL_OP:
            continue  # results are counted from `results` (the executor fetches those)
        for src, idx in n.inputs:
            key = f"{src}:{idx}"
            readers[key] = readers.get(key, 0) + 1
        for c in n.control_inputs:
            readers[c] = readers.get(c, 0) + 1
    for t in [*results, *kept]:
        readers[t] = readers.get(t, 0) + 1
    found: list[LoopSum] = []
    for v in range(num_vars):
        arg = f"{arg_names[v]}:0"
        add = by_name.get(results[v].rpartition(":")[0])
        if (
            v in cond_reads
            or add is None
            or add.op not in _ADDS
            or results[v] != f"{add.name}:0"
            or results.count(results[v]) != 1
            or readers.get(results[v]) != 1
            or readers.get(add.name)
            or readers.get(arg) != 1
        ):
            continue
        ins = [f"{s}:{i}" for s, i in add.inputs]
        if len(ins) != 2 or arg not in ins:
            continue
        term_first = ins[1] == arg
        term_out = ins[0] if term_first else ins[1]
        term = by_name.get(term_out.rpartition(":")[0])
        if term is None or term_out != f"{term.name}:0" or readers.get(term.name):
            continue
        if readers.get(term_out) != 1:
            continue
        part = _part(by_name, readers, (term.name, 0))
        if part is not None:
            found.append(LoopSum(v, term, add, term_first, (part,)))
            continue
        placed = _placed_parts(by_name, readers, term)
        if placed is not None:
            parts, placing, consts = placed
            found.append(LoopSum(v, term, add, term_first, parts, placing, tuple(consts.items())))
    return found


class LoopSumState:
    """One loop run's kept factors, multiplied and added into the loop variables."""

    __slots__ = ("_bytes", "_kept", "_sums")

    def __init__(self, sums: Sequence[_BoundSum], num_factors: int) -> None:
        self._sums = sums
        self._kept: list[list[Any]] = [[] for _ in range(num_factors)]
        self._bytes = 0

    def keep(self, ctx: Any, values: Sequence[Any], loop_vars: list[Any]) -> None:
        """One iteration's factors, in the order of LoopSums.factor_tensors."""
        for lst, value in zip(self._kept, values):
            lst.append(value)
            self._bytes += getattr(value, "nbytes", 0)
        if self._bytes >= CHUNK_BYTES:
            self.finish(ctx, loop_vars)

    def finish(self, ctx: Any, loop_vars: list[Any]) -> None:
        """Adds the kept iterations' terms into the loop variables."""
        if not self._kept or not self._kept[0]:
            return
        joined: dict[tuple[int, int], Any] = {}  # (factor, axis) -> its values joined
        for bound in self._sums:
            try:
                sums = []
                for part in bound.parts:
                    args = []
                    for f, axis in zip(part.factors, part.part.axes):
                        j = joined.get((f, axis))
                        if j is None:
                            j = joined[(f, axis)] = _join(self._kept[f], axis)
                        args.append(j)
                    sums.append(part.product(ctx, args))
            except ValueError:
                # Iterations' factors that do not join (other shapes): the terms one by one,
                # as the body would have added them, with the kernels' own errors.
                self._one_by_one(ctx, bound, loop_vars)
                continue
            self._add(ctx, bound, loop_vars, bound.place(ctx, sums))
        for lst in self._kept:
            lst.clear()
        self._bytes = 0

    def _one_by_one(self, ctx: Any, bound: _BoundSum, loop_vars: list[Any]) -> None:
        count = len(self._kept[bound.parts[0].factors[0]])
        for t in range(count):
            values = [
                part.term(ctx, [self._kept[f][t] for f in part.factors])[0] for part in bound.parts
            ]
            self._add(ctx, bound, loop_vars, bound.place(ctx, values))

    @staticmethod
    def _add(ctx: Any, bound: _BoundSum, loop_vars: list[Any], term: Any) -> None:
        var = loop_vars[bound.sum.var]
        pair = [term, var] if bound.sum.term_first else [var, term]
        (loop_vars[bound.sum.var],) = bound.add(ctx, pair)


def _join(values: list[Any], axis: int) -> Any:
    return values[0] if len(values) == 1 else np.concatenate(values, axis=axis)


@dataclass(frozen=True)
class _BoundPart:
    part: SummedPart
    factors: tuple[int, ...]  # per input: its place in LoopSums.factor_tensors
    term: Any  # the part's kernel, bound as the body would bind it
    gemm: Any  # for a MatMul: the product of the joined factors (see _joined_product)

    def product(self, ctx: Any, args: list[Any]) -> Any:
        return self.term(ctx, args)[0] if self.gemm is None else self.gemm(*args)


class _Placing:
    """The nodes placing a term's parts (ConcatV2, or StridedSliceGrads and their AddN),
    with the body's kernels, on the body's constants."""

    def __init__(self, loop_sum: LoopSum) -> None:
        self._nodes = [(n, kernel_table.lookup(n.op, "CPU").factory(n)) for n in loop_sum.placing]
        self._consts = dict(loop_sum.consts)
        self._parts = [f"{p.node.name}:0" for p in loop_sum.parts]

    def __call__(self, ctx: Any, parts: list[Any]) -> Any:
        if not self._nodes:
            return parts[0]
        values: dict[str, Any] = dict(zip(self._parts, parts))
        for name, value in self._consts.items():
            values[f"{name}:0"] = value
        out = None
        for node, fn in self._nodes:
            (out,) = fn(ctx, [values[f"{s}:{i}"] for s, i in node.inputs])
            values[f"{node.name}:0"] = out
        return out


@dataclass(frozen=True)
class _BoundSum:
    sum: LoopSum
    parts: tuple[_BoundPart, ...]
    place: _Placing
    add: Any


def _joined_product(term: Node) -> Any:
    """The product of a MatMul's joined factors: the kernel's, except that a product too
    big for one core is shared between two threads each running BLAS on one (as the
    iterations' products were): BLAS's own threads, which the MatMul kernel leaves big
    products to, spin against each other on a busy machine (2.4x the CPU time of one thread
    for this [384 x 3200] @ [3200 x 1024] under a load of 5 per core)."""
    ta = bool(term.attrs.get("transpose_a", False))
    tb = bool(term.attrs.get("transpose_b", False))
    kernel = kernel_table.lookup(term.op, "CPU").factory(term)

    def product(a: Any, b: Any) -> Any:
        if not (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and a.dtype in _cpu_gemm.BLAS_DTYPES
            and a.ndim == 2
            and b.ndim == 2
        ):
            return kernel(None, [a, b])[0]  # the kernel's dtype rules and errors
        x, y = (a.T if ta else a), (b.T if tb else b)
        if x.shape[1] != y.shape[0]:
            return kernel(None, [a, b])[0]
        return _cpu_gemm.matmul(x, y, blas_threads_from=1 << 62)

    return product


class LoopSums:
    """A loop's sums, their kernels bound once (the body's own kernels for the term and the
    addition: the same dtype rules and errors). The loop runs on the CPU."""

    def __init__(self, sums: Sequence[LoopSum]) -> None:
        # Each body tensor handed out once, whichever sums read it (an LSTM's gate gradients
        # feed both its kernel's and its bias's).
        self.factor_tensors: list[str] = list(dict.fromkeys(t for s in sums for t in s.inputs))
        self._bound = [
            _BoundSum(
                s,
                tuple(
                    _BoundPart(
                        p,
                        tuple(self.factor_tensors.index(t) for t in p.inputs),
                        kernel_table.lookup(p.node.op, "CPU").factory(p.node),
                        _joined_product(p.node) if p.node.op == "MatMul" else None,
                    )
                    for p in s.parts
                ),
                _Placing(s),
                kernel_table.lookup(s.add.op, "CPU").factory(s.add),
            )
            for s in sums
        ]

    def __bool__(self) -> bool:
        return bool(self._bound)

    def start(self) -> LoopSumState:
        return LoopSumState(self._bound, len(self.factor_tensors))


__all__ = ["CHUNK_BYTES", "LoopSum", "LoopSumState", "LoopSums", "SummedPart", "find_loop_sums"]
