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
class LoopSum:
    """Loop variable `var` is `var + term(inputs)` in every iteration, read by nothing else."""

    var: int
    term: Node  # MatMul or BiasAddGrad
    add: Node
    term_first: bool  # the addition is add(term, var) rather than add(var, term)
    inputs: tuple[str, ...]  # body tensors ('op:idx') the term reads, kept per iteration
    axes: tuple[int, ...]  # per input: the axis its iterations' values are joined along


def _join_axes(term: Node) -> tuple[int, ...] | None:
    """Per input of the term, the axis along which its terms sum (None: not a summed term)."""
    if term.op == "MatMul":
        ta = bool(term.attrs.get("transpose_a", False))
        tb = bool(term.attrs.get("transpose_b", False))
        return (0 if ta else 1, 1 if tb else 0)
    if term.op == "BiasAddGrad":
        return (0,)  # the batch axis, summed whatever the data format
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
        axes = _join_axes(term)
        if axes is None or readers.get(term_out) != 1 or len(term.inputs) != len(axes):
            continue
        inputs = tuple(f"{s}:{i}" for s, i in term.inputs)
        found.append(LoopSum(v, term, add, term_first, inputs, axes))
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
                args = []
                for f, axis in zip(bound.factors, bound.sum.axes):
                    j = joined.get((f, axis))
                    if j is None:
                        j = joined[(f, axis)] = _join(self._kept[f], axis)
                    args.append(j)
            except ValueError:
                # Iterations' factors that do not join (other shapes): the terms one by one,
                # as the body would have added them, with the kernels' own errors.
                self._one_by_one(ctx, bound, loop_vars)
                continue
            (term,) = bound.term(ctx, args) if bound.gemm is None else (bound.gemm(*args),)
            self._add(ctx, bound, loop_vars, term)
        for lst in self._kept:
            lst.clear()
        self._bytes = 0

    def _one_by_one(self, ctx: Any, bound: _BoundSum, loop_vars: list[Any]) -> None:
        for values in zip(*(self._kept[f] for f in bound.factors)):
            (term,) = bound.term(ctx, list(values))
            self._add(ctx, bound, loop_vars, term)

    @staticmethod
    def _add(ctx: Any, bound: _BoundSum, loop_vars: list[Any], term: Any) -> None:
        var = loop_vars[bound.sum.var]
        pair = [term, var] if bound.sum.term_first else [var, term]
        (loop_vars[bound.sum.var],) = bound.add(ctx, pair)


def _join(values: list[Any], axis: int) -> Any:
    return values[0] if len(values) == 1 else np.concatenate(values, axis=axis)


@dataclass(frozen=True)
class _BoundSum:
    sum: LoopSum
    factors: tuple[int, ...]  # per term input: its place in LoopSums.factor_tensors
    term: Any  # the term's kernel, bound as the body would bind it
    add: Any
    gemm: Any  # for a MatMul term: the product of the joined factors (see _joined_product)


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
                tuple(self.factor_tensors.index(t) for t in s.inputs),
                kernel_table.lookup(s.term.op, "CPU").factory(s.term),
                kernel_table.lookup(s.add.op, "CPU").factory(s.add),
                _joined_product(s.term) if s.term.op == "MatMul" else None,
            )
            for s in sums
        ]

    def __bool__(self) -> bool:
        return bool(self._bound)

    def start(self) -> LoopSumState:
        return LoopSumState(self._bound, len(self.factor_tensors))


__all__ = ["CHUNK_BYTES", "LoopSum", "LoopSumState", "LoopSums", "find_loop_sums"]
