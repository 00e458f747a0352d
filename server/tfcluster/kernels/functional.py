"""Kernels of the functional control flow ops: If / StatelessIf, While / StatelessWhile.

Each body is parsed once, when the node is bound, into an Executor over its nodes; a call
runs it with the caller's step context (same resources, deadline, cancellation), in a
`CallContext` that carries the call's arguments for the body's `_Arg` kernels. Stateful
kernels inside a body live in the body's own kernel cache, which lives as long as the
functional op's kernel (itself kept in the worker's cache when the op is stateful).
Inner ops' device annotations are ignored: a body runs wholly on its op's device.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors, func_graph, op_def_registry
from tfcluster.framework.func_graph import ACCUMULATE_ATTR, SLICED_CAPTURES_ATTR
from tfcluster.kernels import _cpu_gemm
from tfcluster.kernels._loop_sums import LoopSums, find_loop_sums
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.runtime.body_fusion import fuse_body
from tfcluster.runtime.constant_folding import fold_function_body
from tfcluster.runtime.executor import Executor
from tfcluster.runtime.frame_executor import FrameExecutor, build_executor, has_control_flow
from tfcluster.runtime.graph_ir import nodes_from_graph_def
from tfcluster.runtime.loop_invariants import find_invariants
from tfcluster.runtime.resources import VariableRef
from tfcluster.runtime.shape_specialization import ShapeSpecializer
from tfcluster.runtime.step_context import StepContext


class CallContext(StepContext):
    """The caller's step context plus this call's arguments."""

    __slots__ = ("args",)

    def __init__(self, parent: StepContext, args: Sequence[Any]) -> None:
        # Shares the parent's state (not a copy): cancelling either cancels both.
        self.step_id = parent.step_id
        self.resources = parent.resources
        self.rendezvous = parent.rendezvous
        self.deadline = parent.deadline
        self.remote_recv = parent.remote_recv
        self.trace = parent.trace
        self.cancelled = parent.cancelled
        self.step_stats = parent.step_stats
        self.args = args


@kernel("_Arg", devices=CPU_ONLY)
def arg(node: Any, xp: Any) -> Any:
    index = int(node.attrs["index"])
    name = node.name

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        args = getattr(ctx, "args", None)
        if args is None or index >= len(args):
            raise errors.InternalError(
                None, None, f"_Arg {name} (index {index}) runs outside a function call"
            )
        value = args[index]
        if isinstance(value, VariableRef):  # a value argument fed from a variable
            value = value.read(name)
        return (value,)

    return compute


@kernel("_RefArg", devices=CPU_ONLY)
def ref_arg(node: Any, xp: Any) -> Any:
    index = int(node.attrs["index"])
    name = node.name

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        args = getattr(ctx, "args", None)
        if args is None or index >= len(args) or not isinstance(args[index], VariableRef):
            raise errors.InternalError(None, None, f"_RefArg {name} was not given a variable")
        return (args[index],)

    return compute


@kernel("_RefHandle", devices=CPU_ONLY)
def ref_handle(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return (ins[0],)

    return compute


@kernel("_Retval", devices=CPU_ONLY)
def retval(node: Any, xp: Any) -> Any:
    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        return ()

    return compute


_ParsedBody = tuple[func_graph.FunctionBody, list[Any]]


def _parse(func: Any, what: str) -> _ParsedBody:
    """A body and its nodes, device annotations dropped."""
    try:
        body = func_graph.parse_function(func, what)
    except ValueError as e:
        raise errors.InvalidArgumentError(None, None, str(e)) from None
    nodes = nodes_from_graph_def(body.graph_def)
    for n in nodes:
        n.device = ""
    return body, nodes


def _args_read(parsed: _ParsedBody) -> set[int]:
    """The arguments some node of the body reads."""
    body, nodes = parsed
    read = {src for n in nodes for src, _ in n.inputs} | {
        c for n in nodes for c in n.control_inputs
    }
    read |= {t.rpartition(":")[0] for t in body.results}
    return {i for i, a in enumerate(body.args) if a[0] in read}


class _Function:
    """One body, bound: call it with argument values, get its results."""

    def __init__(
        self,
        func: Any,
        device: str,
        what: str,
        extra_fetches: Sequence[str] = (),
        parsed: _ParsedBody | None = None,
        invariant_args: Sequence[int] = (),
    ) -> None:
        """parsed: the body as _parse gave it, its results possibly changed since;
        invariant_args: the arguments a loop hands every iteration of a run unchanged (its
        captures), whose nodes `loop_caller` computes once per run."""
        body, nodes = parsed if parsed is not None else _parse(func, what)
        # Shape arithmetic on constants and declared shapes, once rather than every call.
        nodes = fold_function_body(nodes, {a[0]: a[2] for a in body.args if not a[3]})
        # Every stateful op in the body runs (an assign_add whose result is unused included).
        targets = [
            n.name
            for n in nodes
            if n.op not in func_graph.ARG_OPS
            and (op_def := op_def_registry.lookup(n.op)) is not None
            and op_def.stateful
        ]
        self.num_args = len(body.args)
        self.num_results = len(body.results)
        self._cache: dict[str, Any] = {}
        self._device = device
        # Value arguments are fed straight into the executor's slots (no _Arg kernel per call);
        # variable references go through _RefArg, whose readers the executor dereferences.
        self._fed = [i for i, a in enumerate(body.args) if not a[3]]
        # Every argument fed: no _Arg kernel runs, so the caller's context serves as it is.
        self._all_fed = len(self._fed) == len(body.args)
        # A body holding TF1's conds (a loop raised from a v1 frame) runs on the frame
        # executor, which carries their dead branches.
        feeds = [f"{body.args[i][0]}:0" for i in self._fed]
        fetches = [*body.results, *extra_fetches]

        def build(
            body_nodes: list[Any], fed: Sequence[str] = feeds, wanted: Sequence[str] = targets
        ) -> Executor | FrameExecutor:
            if not has_control_flow(body_nodes):
                # The gradient chains that run once per iteration, fused (a specialized
                # body's: its zeros and slice shapes are constants).
                body_nodes = fuse_body(body_nodes, fetches, wanted)
            return build_executor(
                body_nodes, fed, fetches, wanted, kernel_cache=self._cache, default_device=device
            )

        self._executor: Executor | FrameExecutor = build(nodes)
        if isinstance(self._executor, FrameExecutor):
            self._executor.live_fetches = len(body.results)
        # A plain body whose shape arithmetic its arguments' shapes settle (a loop's gradient
        # body, called once per iteration with the same shapes) runs specialized to them.
        self._specialized: ShapeSpecializer | None = None
        if isinstance(self._executor, Executor):
            spec = ShapeSpecializer(nodes, feeds, fetches, targets, self._executor, build)
            self._specialized = spec if spec.useful else None
        # A loop body's invariant nodes, run once per run of the loop (runtime/
        # loop_invariants.py): the body without them, and the executor that computes them.
        self._hoisted: tuple[Executor, Executor, list[int]] | None = None
        if invariant_args and self._all_fed and self._specialized is None:
            self._hoisted = self._hoist(nodes, body, invariant_args, fetches, targets, build)

    def _hoist(
        self,
        nodes: list[Any],
        body: Any,
        invariant_args: Sequence[int],
        fetches: Sequence[str],
        targets: Sequence[str],
        build: Any,
    ) -> tuple[Executor, Executor, list[int]] | None:
        if not isinstance(self._executor, Executor):
            return None
        found = find_invariants(nodes, [body.args[i][0] for i in invariant_args], fetches, targets)
        if found is None:
            return None
        feeds = [f"{a[0]}:0" for a in body.args]
        rest = build(
            nodes,
            [*feeds, *found.boundary],
            [t for t in targets if t not in found.nodes],
        )
        once = build_executor(
            nodes,
            [feeds[i] for i in invariant_args],
            found.boundary,
            [],
            kernel_cache=self._cache,
            default_device=self._device,
        )
        if not isinstance(rest, Executor) or not isinstance(once, Executor):
            return None
        return rest, once, list(invariant_args)

    def loop_caller(self) -> Any:
        """A call of the body for one run of a loop: its invariant nodes computed in the
        first call and fed to the others (where the body has any; plain calls otherwise,
        and in traced steps, whose timelines show every node of every iteration)."""
        if self._hoisted is None:
            return self.__call__
        rest, once, positions = self._hoisted
        invariant: list[Any] | None = None

        def call(ctx: StepContext, args: Sequence[Any]) -> list[Any]:
            nonlocal invariant
            if ctx.trace:
                return self._executor.run_nested(ctx, args)
            if invariant is None:
                invariant = once.run_nested(ctx, [args[i] for i in positions])
            return rest.run_nested(ctx, [*args, *invariant])

        return call

    def __call__(self, ctx: StepContext, args: Sequence[Any]) -> list[Any]:
        # The functional ops' inputs are values (the executor reads variables before a
        # kernel runs); variables captured by reference reach their _RefArg through `args`.
        if not self._all_fed:
            ctx, args = CallContext(ctx, args), [args[i] for i in self._fed]
        if self._specialized is not None and not ctx.trace:
            return self._specialized.run(ctx, args)
        return self._executor.run_nested(ctx, args)


def _truthy(value: Any, what: str) -> bool:
    if type(value) is np.ndarray and value.shape == ():  # a predicate's usual value
        return bool(value)
    v = np.asarray(value)
    if v.shape != ():
        raise errors.InvalidArgumentError(
            None, None, f"{what} must be a scalar, but it has shape {list(v.shape)}"
        )
    return bool(v)


def _if_kernel(node: Any, xp: Any) -> Any:
    then_fn = _Function(node.attrs["then_branch"], node.device, f"{node.name} then_branch")
    else_fn = _Function(node.attrs["else_branch"], node.device, f"{node.name} else_branch")
    num_args = len(node.inputs) - 1
    for fn in (then_fn, else_fn):
        if fn.num_args != num_args:
            raise errors.InvalidArgumentError(
                None, None, f"{node.name}: a branch takes {fn.num_args} arguments, not {num_args}"
            )
    if then_fn.num_results != else_fn.num_results:
        raise errors.InvalidArgumentError(
            None, None, f"{node.name}: the branches return different numbers of results"
        )

    def compute(ctx: Any, ins: list[Any]) -> Sequence[Any]:
        fn = then_fn if _truthy(ins[0], "The predicate of If") else else_fn
        return fn(ctx, ins[1:])

    return compute


kernel("If", devices=CPU_ONLY)(_if_kernel)
kernel("StatelessIf", devices=CPU_ONLY)(_if_kernel)


def _while_kernel(node: Any, xp: Any) -> Any:
    a = node.attrs
    num_vars = len(a["T"])
    has_max = bool(a.get("has_maximum_iterations", False))
    num_caps = len(node.inputs) - num_vars - (1 if has_max else 0)
    # Body tensors whose every value the loop keeps (and returns) for its gradient.
    accumulate = list(a.get(ACCUMULATE_ATTR) or ())
    # Captures that are lists of a forward loop's values: one item per iteration, last first.
    sliced = [int(p) for p in a.get(SLICED_CAPTURES_ATTR) or ()]
    cond_parsed = _parse(a["cond"], f"{node.name} cond")
    cond_fn = _Function(a["cond"], node.device, f"{node.name} cond", parsed=cond_parsed)
    parsed = _parse(a["body"], f"{node.name} body")
    sums = _loop_sums(parsed, num_vars, _args_read(cond_parsed), accumulate)
    # The captures, bar those that hand each iteration its own item of a list.
    invariant = [num_vars + p for p in range(num_caps) if p not in sliced]
    body_fn = _Function(
        a["body"],
        node.device,
        f"{node.name} body",
        accumulate + sums.factor_tensors,
        parsed,
        invariant,
    )
    num_kept = len(accumulate)
    if cond_fn.num_args != num_vars + num_caps or body_fn.num_args != num_vars + num_caps:
        raise errors.InvalidArgumentError(
            None, None, f"{node.name}: cond and body must take {num_vars + num_caps} arguments"
        )
    if cond_fn.num_results != 1 or body_fn.num_results != num_vars:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"{node.name}: cond must return 1 result and body {num_vars} (one per loop var)",
        )

    def compute(ctx: Any, ins: list[Any]) -> Sequence[Any]:
        loop_vars = list(ins[:num_vars])
        captures = list(ins[num_vars : num_vars + num_caps])
        limit = None
        if has_max:
            limit = int(np.asarray(ins[-1]))
            if limit < 0:
                raise errors.InvalidArgumentError(
                    None, None, f"maximum_iterations must be non-negative, got {limit}"
                )
        i = 0
        # Each iteration's kept values, in one list (turned into one list per kept tensor
        # at the end: C's work, not a Python loop over dozens of values an iteration).
        rows: list[Sequence[Any]] = []
        summing = sums.start() if sums else None
        lists = [(p, ins[num_vars + p]) for p in sliced]
        for p, items in lists:
            if not isinstance(items, list):
                raise errors.InvalidArgumentError(
                    None, None, f"{node.name}: capture {p} is not a list of loop values"
                )
        # The iteration from which some list has no item left.
        shortest = min((len(items) for _, items in lists), default=0)
        call_body = body_fn.loop_caller()
        # The iterations' products hold BLAS at one thread once, not each product (see
        # _cpu_gemm.products_in_a_row).
        with _cpu_gemm.products_in_a_row():
            while limit is None or i < limit:
                ctx.time_left()  # the step's deadline and cancellation bound a runaway loop
                (go,) = cond_fn(ctx, loop_vars + captures)
                if not _truthy(go, "The loop condition"):
                    break
                if lists:
                    if i >= shortest:
                        for _, items in lists:
                            if i >= len(items):
                                raise errors.InvalidArgumentError(
                                    None,
                                    None,
                                    f"{node.name}: iteration {i} has no kept value ({len(items)})",
                                )
                    for p, items in lists:
                        # iteration i takes the i-th item from the end (a forward loop's
                        # values, kept in its order: the gradient loop runs it backwards)
                        captures[p] = items[-1 - i]
                out = call_body(ctx, loop_vars + captures)
                loop_vars = out[:num_vars]
                if num_kept:
                    rows.append(out[num_vars : num_vars + num_kept])
                if summing is not None:
                    summing.keep(ctx, out[num_vars + num_kept :], loop_vars)
                i += 1
            if summing is not None:
                summing.finish(ctx, loop_vars)
        kept = [list(values) for values in zip(*rows)] if rows else [[] for _ in accumulate]
        return (*loop_vars, np.int32(i), *kept)

    return compute


def _loop_sums(
    parsed: _ParsedBody, num_vars: int, cond_reads: set[int], accumulate: list[str]
) -> LoopSums:
    """The body's loop variables that sum a term per iteration (runtime/loop_sums.py): the
    body returns them unchanged and hands out the terms' factors instead."""
    body, nodes = parsed
    # Folded as the body will be: a placed term's shapes are constants then.
    folded = fold_function_body(nodes, {a[0]: a[2] for a in body.args if not a[3]})
    found = find_loop_sums(
        folded, [a[0] for a in body.args], body.results, num_vars, cond_reads, accumulate
    )
    found = [s for s in found if not body.args[s.var][3]]  # values, not variable references
    for s in found:
        body.results[s.var] = f"{body.args[s.var][0]}:0"
    return LoopSums(found)


kernel("While", devices=CPU_ONLY)(_while_kernel)
kernel("StatelessWhile", devices=CPU_ONLY)(_while_kernel)
