"""What converted code calls (`ag__.<name>`): the control flow that is a tf.cond / a
tf.while_loop when its condition or iterated value is a tensor, and Python otherwise."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import Tensor, convert_to_tensor
from tfcluster.ops import array_ops, control_flow_ops, math_ops, nest
from tfcluster.ops.variables import Variable


class Undefined:
    """The value of a name not bound yet where a converted block starts."""

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name: str) -> None:
        self.symbol_name = symbol_name

    def __repr__(self) -> str:
        return f"Undefined({self.symbol_name})"


def ld(namespace: dict[str, Any], name: str) -> Any:
    """A local's value, or Undefined when it has none yet."""
    return namespace[name] if name in namespace else Undefined(name)


def _is_tensor(x: Any) -> bool:
    return isinstance(x, (Tensor, Variable))


# ---- if ------------------------------------------------------------------------------------
def if_stmt(
    cond: Any,
    true_fn: Callable[..., Any],
    false_fn: Callable[..., Any],
    values: Sequence[Any],
    names: Sequence[str],
) -> Any:
    if not _is_tensor(cond):
        return true_fn(*values) if cond else false_fn(*values)
    return _tf_if(convert_to_tensor(cond), true_fn, false_fn, list(values), list(names))


def _tf_if(
    cond: Tensor,
    true_fn: Callable[..., Any],
    false_fn: Callable[..., Any],
    values: list[Any],
    names: list[str],
) -> Any:
    results: dict[str, Any] = {}

    def branch(fn: Callable[..., Any], which: str) -> Callable[[], Any]:
        def run() -> Any:
            out = fn(*values)
            for n, v in zip(names, out):
                if isinstance(v, Undefined):
                    raise ValueError(
                        f"'{n}' must also be initialized in the {which} branch: it is assigned "
                        "in only one branch of a tf.cond"
                    )
            results[which] = out
            return [_as_output(v) for v in out] if names else control_flow_ops.no_op()

        return run

    if not names:
        control_flow_ops.cond(cond, branch(true_fn, "if"), branch(false_fn, "else"))
        return ()
    out = control_flow_ops.cond(cond, branch(true_fn, "if"), branch(false_fn, "else"), strict=True)
    return tuple(out)


def _as_output(v: Any) -> Any:
    if isinstance(v, Variable):
        return v.value()
    if nest.is_nested(v):
        return nest.map_structure(_as_output, v)
    if isinstance(v, Tensor):
        return v
    return convert_to_tensor(v)


# ---- while ---------------------------------------------------------------------------------
def while_stmt(
    test: Callable[..., Any],
    body: Callable[..., Any],
    values: Sequence[Any],
    names: Sequence[str],
    opts: dict[str, Any] | None = None,
) -> tuple[Any, ...]:
    values = list(values)
    while True:
        go = test(*values)
        if _is_tensor(go):
            return _tf_while(test, body, values, list(names), opts or {})
        if not go:
            return tuple(values)
        values = list(body(*values))


def _tf_while(
    test: Callable[..., Any],
    body: Callable[..., Any],
    values: list[Any],
    names: list[str],
    opts: dict[str, Any],
) -> tuple[Any, ...]:
    # Names unbound before the loop are the body's temporaries: not loop variables.
    carried = [i for i, v in enumerate(values) if not isinstance(v, Undefined)]

    def full(loop_vars: Sequence[Any]) -> list[Any]:
        out = list(values)
        for i, v in zip(carried, loop_vars):
            out[i] = v
        return out

    def cond_fn(*loop_vars: Any) -> Any:
        return test(*full(loop_vars))

    def body_fn(*loop_vars: Any) -> Any:
        out = body(*full(loop_vars))
        return [_like(out[i], values[i], names[i]) for i in carried]

    init = [_loop_value(values[i]) for i in carried]
    if not init:
        raise ValueError("a tf.while_loop made from a Python while needs a loop variable")
    kwargs: dict[str, Any] = {}
    for key in ("parallel_iterations", "swap_memory", "maximum_iterations"):
        if key in opts:
            kwargs[key] = opts[key]
    if "shape_invariants" in opts:
        invariants = dict((id(v), s) for v, s in opts["shape_invariants"])
        kwargs["shape_invariants"] = [
            invariants.get(id(values[i]), _shape_of(init[k])) for k, i in enumerate(carried)
        ]
    final = control_flow_ops.while_loop(
        cond_fn, body_fn, init, return_same_structure=True, **kwargs
    )
    return tuple(full(final))


def _shape_of(v: Any) -> Any:
    return nest.map_structure(lambda t: t.shape, v)


def _loop_value(v: Any) -> Any:
    if isinstance(v, Variable):
        return v.value()
    if nest.is_nested(v):
        return nest.map_structure(_loop_value, v)
    if isinstance(v, Tensor):
        return v
    return convert_to_tensor(v)


def _like(new: Any, old: Any, name: str) -> Any:
    """A loop variable's next value, with its first value's dtype (a Python 0 starts int32;
    `i += 1` keeps it so)."""
    if isinstance(new, Undefined):
        raise ValueError(f"'{name}' became undefined inside the loop")
    if nest.is_nested(new):
        return nest.map_structure(lambda n, o: _like(n, o, name), new, old)
    t = _loop_value(new)
    return t


# ---- for -----------------------------------------------------------------------------------
class _TensorRange:
    """range(...) with a tensor bound: iterated by a tf.while_loop over a counter."""

    def __init__(self, start: Any, limit: Any, delta: Any) -> None:
        self.start, self.limit, self.delta = start, limit, delta


def range_(*args: Any) -> Any:
    if not any(_is_tensor(a) for a in args):
        return range(*args)
    if len(args) == 1:
        start, limit, delta = 0, args[0], 1
    elif len(args) == 2:
        start, limit, delta = args[0], args[1], 1
    else:
        start, limit, delta = args
    return _TensorRange(start, limit, delta)


def for_stmt(
    iterated: Any,
    body: Callable[..., Any],
    values: Sequence[Any],
    names: Sequence[str],
    opts: dict[str, Any] | None = None,
) -> tuple[Any, ...]:
    values = list(values)
    names = list(names)
    if isinstance(iterated, _TensorRange):
        return _tf_range_for(iterated, body, values, names, opts or {})
    if _is_tensor(iterated):
        return _tf_tensor_for(convert_to_tensor(iterated), body, values, names, opts or {})
    for item in iterated:
        values = list(body(item, *values))
    return tuple(values)


def _tf_counted_loop(
    n: Any,
    item_at: Callable[[Tensor], Any],
    body: Callable[..., Any],
    values: list[Any],
    names: list[str],
    opts: dict[str, Any],
    step_cmp: Callable[[Tensor], Tensor],
) -> tuple[Any, ...]:
    # The loop's own target name is bound each iteration: not carried.
    carried = [i for i, v in enumerate(values) if not isinstance(v, Undefined)]

    def full(loop_vars: Sequence[Any]) -> list[Any]:
        out = list(values)
        for i, v in zip(carried, loop_vars):
            out[i] = v
        return out

    def cond_fn(i: Tensor, *loop_vars: Any) -> Any:
        return step_cmp(i)

    def body_fn(i: Tensor, *loop_vars: Any) -> Any:
        out = body(item_at(i), *full(loop_vars))
        return [i + 1, *[_like(out[k], values[k], names[k]) for k in carried]]

    init = [convert_to_tensor(0, dtype=dtypes.int32), *[_loop_value(values[k]) for k in carried]]
    kwargs = {k: opts[k] for k in ("parallel_iterations", "swap_memory") if k in opts}
    final = control_flow_ops.while_loop(
        cond_fn, body_fn, init, return_same_structure=True, **kwargs
    )
    return tuple(full(final[1:]))


def _tf_tensor_for(
    t: Tensor, body: Callable[..., Any], values: list[Any], names: list[str], opts: dict[str, Any]
) -> tuple[Any, ...]:
    if t.shape.ndims == 0:
        raise ValueError(f"Cannot iterate over a scalar tensor ({t.name})")
    n = array_ops.shape(t)[0]
    return _tf_counted_loop(
        n, lambda i: array_ops.gather(t, i), body, values, names, opts, lambda i: i < n
    )


def _tf_range_for(
    r: _TensorRange,
    body: Callable[..., Any],
    values: list[Any],
    names: list[str],
    opts: dict[str, Any],
) -> tuple[Any, ...]:
    start = convert_to_tensor(r.start)
    limit = math_ops.cast(convert_to_tensor(r.limit), start.dtype)
    delta = math_ops.cast(convert_to_tensor(r.delta), start.dtype)
    # Iterations: ceil((limit - start) / delta), never below zero (Python's range).
    count = math_ops.maximum(
        math_ops.cast(
            math_ops.ceil(
                math_ops.truediv(
                    math_ops.cast(limit - start, dtypes.float64),
                    math_ops.cast(delta, dtypes.float64),
                )
            ),
            dtypes.int32,
        ),
        0,
    )
    return _tf_counted_loop(
        count,
        lambda i: start + math_ops.cast(i, start.dtype) * delta,
        body,
        values,
        names,
        opts,
        lambda i: i < count,
    )


# ---- boolean operators ---------------------------------------------------------------------
def and_(a: Callable[[], Any], b: Callable[[], Any]) -> Any:
    x = a()
    if _is_tensor(x):
        return math_ops.logical_and(x, b())
    return x and b()


def or_(a: Callable[[], Any], b: Callable[[], Any]) -> Any:
    x = a()
    if _is_tensor(x):
        return math_ops.logical_or(x, b())
    return x or b()


def not_(x: Any) -> Any:
    if _is_tensor(x):
        return math_ops.logical_not(x)
    return not x


__all__ = ["Undefined", "and_", "for_stmt", "if_stmt", "ld", "not_", "or_", "range_", "while_stmt"]
