"""A step's prepared nodes compiled into one straight-line Python function.

The executor's sequential loop pays, per node, for the loop itself, a list built by a
comprehension, attribute reads of the prepared step and several checks (derefs, host copies,
tracing). A small graph of cheap kernels (an RNN body runs its few dozen ops once per
iteration) spends as much there as in the kernels. The plan does the same work with none of
that: each value lives in a local variable, each node is one line that calls its kernel with
a list of those locals, and the values a node is the last to read are dropped (set to None)
before its kernel runs, as the loop drops them. Constants (Const kernels on the CPU, which
hand out the same read-only array every step) are taken once when the plan is made.

A failing kernel is named from the line it failed on (the traceback), so the plan spends
nothing per node on knowing where it is.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.runtime import device_copy

# Beyond this many nodes a graph keeps the loop: compiling costs about a microsecond a line,
# and graphs that big are dominated by their kernels anyway.
MAX_NODES = 20000

Plan = Callable[[Any, Sequence[Any]], list[Any]]


def copy_to_host(ins: list[Any], positions: tuple[int, ...]) -> bool:
    """Moves a node's inputs at `positions` to the host (a generated line calls it)."""
    for k in positions:
        ins[k] = device_copy.to_host(ins[k])
    return True


def input_expressions(
    step: Any, i: int, env: dict[str, Any], read: Callable[[int], str]
) -> list[str]:
    """The source of node i's inputs in a generated plan: each slot's value, a reference
    read through `.read(node name)` where the kernel takes the ref's value."""
    args = []
    for k, slot in enumerate(step.in_slots):
        if k in step.derefs:
            env[f"n{i}_{k}"] = step.read_names[step.derefs.index(k)]
            args.append(f"{read(slot)}.read(n{i}_{k})")
        else:
            args.append(read(slot))
    return args


def _direct_call(step: Any, i: int, env: dict[str, Any], read: Callable[[int], str]) -> str | None:
    """The line computing node i through its kernel's `direct` form (a two-input, one-output
    function of the values: kernels/math.py's binary ops on the host), or None where the
    kernel has none or the node needs the general call (variable reads, host copies)."""
    direct = getattr(step.fn, "direct", None)
    if direct is None or step.derefs or step.to_host or len(step.in_slots) != 2:
        return None
    if len(step.out_pairs) != 1 or step.out_pairs[0][0] != 0:
        return None
    env[f"d{i}"] = direct
    x, y = (read(slot) for slot in step.in_slots)
    return f"s{step.out_pairs[0][1]} = d{i}({x}, {y})"


def plan_env(
    steps: Sequence[Any],
    const_ops: Sequence[bool],
    fail: Callable[[BaseException, str], BaseException],
) -> tuple[dict[str, Any], dict[int, str]]:
    """A generated plan's globals (device copies, host copies, `fail`, the CPU constants'
    values, run now) and, per constant's slot, the name that reads it."""
    env: dict[str, Any] = {"_dc": device_copy, "_host": copy_to_host, "_fail": fail}
    ref: dict[int, str] = {}
    for step, is_const in zip(steps, const_ops):
        if is_const:
            outs = step.fn(None, [])
            for idx, slot in step.out_pairs:
                env[f"k{slot}"] = outs[idx]
                ref[slot] = f"k{slot}"
    return env, ref


def compile_plan(
    steps: Sequence[Any],
    const_ops: Sequence[bool],
    feed_slots: Sequence[int],
    fetch_slots: Sequence[int],
    fail: Callable[[BaseException, str], BaseException],
) -> Plan:
    """steps: the executor's prepared _Steps in order (fn, in_slots, out_pairs, derefs,
    to_host, last_use, name); const_ops[i]: step i is a CPU Const (its outputs are taken now);
    fail(error, node name): the error to raise for a kernel's failure."""
    env, ref = plan_env(steps, const_ops, fail)

    def read(slot: int) -> str:
        return ref.get(slot, f"s{slot}")

    body = ["def plan(ctx, feeds):"]
    body += [f"    s{slot} = feeds[{k}]" for k, slot in enumerate(feed_slots)]
    body.append("    try:")
    first_line = len(body) + 1  # line numbers count from 1
    names: list[str] = []
    for i, (step, is_const) in enumerate(zip(steps, const_ops)):
        if is_const:
            continue
        env[f"f{i}"] = step.fn
        releases = [f"s{s} = None" for s in step.last_use if s not in ref]
        direct = _direct_call(step, i, env, read)
        if direct is not None:
            # The kernel's values straight from its direct form; the inputs it was the last
            # to read are dropped after it (the call holds them while it runs either way).
            body.append("        " + "; ".join([direct, *releases]))
            names.append(step.name)
            continue
        ins = "[" + ", ".join(input_expressions(step, i, env, read)) + "]"
        parts: list[str] = []
        if releases or step.to_host:
            parts.append(f"a = {ins}")
            if step.to_host:
                env[f"h{i}"] = tuple(step.to_host)
                parts.append(f"_dc.active and _host(a, h{i})")
            parts += releases
            ins = "a"
        call = f"f{i}(ctx, {ins})"
        if not step.out_pairs:
            parts.append(call)
        elif len(step.out_pairs) == 1:
            idx, slot = step.out_pairs[0]
            parts.append(f"s{slot} = {call}[{idx}]")
        else:
            parts.append(f"o = {call}")
            parts += [f"s{slot} = o[{idx}]" for idx, slot in step.out_pairs]
        body.append("        " + "; ".join(parts))
        names.append(step.name)
    if not names:
        body.append("        pass")
    body.append("    except Exception as e:")
    body.append("        raise _fail(e, _names[e.__traceback__.tb_lineno - _first]) from e")
    body.append("    return [" + ", ".join(read(s) for s in fetch_slots) + "]")
    env["_names"] = names
    env["_first"] = first_line
    code = compile("\n".join(body), "<tfcluster run plan>", "exec")
    exec(code, env)  # the source is made above from slot numbers only
    plan: Plan = env["plan"]
    return plan


__all__ = ["MAX_NODES", "Plan", "compile_plan"]
