"""tf.map_fn, tf.scan, tf.foldl and tf.foldr, as TF1 builds them: the elements are unstacked
into TensorArrays, a tf.while_loop applies `fn` to one element per iteration, and results are
written to TensorArrays and stacked. Gradients flow through the loop and the arrays."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.func_graph import flatten, pack_as
from tfcluster.framework.graph import Tensor, convert_to_tensor, name_scope
from tfcluster.framework.tensor_shape import Dimension, TensorShape
from tfcluster.ops import array_ops, constant_op, control_flow_ops
from tfcluster.ops.tensor_array_ops import TensorArray


def _is_sequence(x: Any) -> bool:
    return isinstance(x, (list, tuple, dict))


def assert_same_structure(a: Any, b: Any) -> None:
    """TF's nest.assert_same_structure (check_types=True): ValueError on a different nesting,
    TypeError on different sequence types."""
    if _is_sequence(a) != _is_sequence(b):
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {a!r}\n\nSecond structure: {b!r}"
        )
    if not _is_sequence(a):
        return
    if type(a) is not type(b) and not (isinstance(a, dict) and isinstance(b, dict)):
        raise TypeError(
            "The two structures don't have the same sequence type. Input structure has type "
            f"{type(b)}, while shallow structure has type {type(a)}."
        )
    if isinstance(a, dict):
        if sorted(a) != sorted(b):
            raise ValueError(
                "The two structures don't have the same keys. First structure has keys "
                f"{sorted(a)}, while second structure has keys {sorted(b)}."
            )
        for k in a:
            assert_same_structure(a[k], b[k])
        return
    if len(a) != len(b):
        raise ValueError(
            "The two structures don't have the same number of elements.\n\n"
            f"First structure ({len(a)} elements): {a!r}\n\n"
            f"Second structure ({len(b)} elements): {b!r}"
        )
    for x, y in zip(a, b):
        assert_same_structure(x, y)


def _flattener(structure: Any) -> tuple[Callable[[Any], list[Any]], Callable[[list[Any]], Any]]:
    if _is_sequence(structure):
        return flatten, lambda flat: pack_as(structure, flat)
    return (lambda x: [x]), (lambda flat: flat[0])


def _num_elements(first: Tensor) -> Any:
    """n: static when known, else shape(elem)[0]."""
    shape = first.shape
    if shape.ndims is not None and shape[0].value is not None:
        return shape[0].value
    return array_ops.shape(first)[0]


def _check_not_scalars(elems_flat: list[Tensor]) -> None:
    static = elems_flat[0].shape
    if static.ndims is not None and static.ndims < 1:
        if len(elems_flat) == 1:
            raise ValueError("elems must be a 1+ dimensional Tensor, not a scalar")
        raise ValueError("elements in elems must be 1+ dimensional Tensors, not scalars")


def _leading_dim(elems_flat: list[Tensor]) -> Dimension:
    n_static = Dimension(elems_flat[0].shape.with_rank_at_least(1)[0].value)
    for e in elems_flat[1:]:
        n_static = n_static.merge_with(e.shape.with_rank_at_least(1)[0].value)
    return n_static


def _check_fn(fn: Any) -> None:
    if not callable(fn):
        raise TypeError("fn must be callable.")


def map_fn(
    fn: Callable[[Any], Any],
    elems: Any,
    dtype: Any = None,
    parallel_iterations: int | None = None,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    name: str | None = None,
) -> Any:
    """map on the list of tensors unpacked from `elems` on dimension 0."""
    from tfcluster.framework import sparse_tensor

    _check_fn(fn)
    if isinstance(elems, sparse_tensor.SparseTensor):
        raise TypeError(
            "To perform a map on the values of a sparse tensor use either "
            " SparseTensor(input.indices, fn(input.values), input.dense_shape) or "
            " SparseTensor(input.indices, map_fn(fn, input.values), input.dense_shape)"
        )
    parallel_iterations = parallel_iterations or 10
    input_flatten, input_pack = _flattener(elems)
    if dtype is None:
        output_flatten, output_pack = input_flatten, input_pack
    else:
        output_flatten, output_pack = _flattener(dtype)
    elems_flat = input_flatten(elems)
    with name_scope(name, "map", elems_flat):
        elems_flat = [convert_to_tensor(e, name="elem") for e in elems_flat]
        dtype = dtype or input_pack([e.dtype for e in elems_flat])
        dtype_flat = [dtypes.as_dtype(d) for d in output_flatten(dtype)]
        _check_not_scalars(elems_flat)
        n = _num_elements(elems_flat[0])
        elems_ta = [
            TensorArray(dtype=e.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(e)
            for e in elems_flat
        ]
        i = constant_op.constant(0)
        accs_ta = [
            TensorArray(dtype=dt, size=n, dynamic_size=False, infer_shape=infer_shape)
            for dt in dtype_flat
        ]

        def compute(i: Tensor, tas: list[TensorArray]) -> tuple[Any, ...]:
            packed_values = input_pack([ta.read(i) for ta in elems_ta])
            packed_fn_values = fn(packed_values)
            assert_same_structure(dtype or elems, packed_fn_values)
            flat_fn_values = output_flatten(packed_fn_values)
            tas = [ta.write(i, value) for ta, value in zip(tas, flat_fn_values)]
            return (i + 1, tas)

        _, r_a = control_flow_ops.while_loop(
            lambda i, _: i < n,
            compute,
            (i, accs_ta),
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=n,
        )
        results_flat = [r.stack() for r in r_a]
        n_static = _leading_dim(elems_flat)
        for r in results_flat:
            r.set_shape(TensorShape([n_static]).concatenate(r.shape[1:]))
        return output_pack(results_flat)


def scan(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    reverse: bool = False,
    name: str | None = None,
) -> Any:
    """scan on the list of tensors unpacked from `elems` on dimension 0: every partial
    result of fn(accumulator, element), stacked."""
    _check_fn(fn)
    input_flatten, input_pack = _flattener(elems)
    if initializer is None:
        output_flatten, output_pack = input_flatten, input_pack
    else:
        output_flatten, output_pack = _flattener(initializer)
    elems_flat = input_flatten(elems)
    with name_scope(name, "scan", elems_flat):
        elems_flat = [convert_to_tensor(e, name="elem") for e in elems_flat]
        n = _num_elements(elems_flat[0])
        elems_ta = [
            TensorArray(
                dtype=e.dtype,
                size=n,
                dynamic_size=False,
                element_shape=e.shape[1:],
                infer_shape=True,
            ).unstack(e)
            for e in elems_flat
        ]
        if initializer is None:
            a_flat = [ta.read(n - 1 if reverse else 0) for ta in elems_ta]
            start = 1
        else:
            a_flat = [convert_to_tensor(init) for init in output_flatten(initializer)]
            start = 0
        accs_ta = [
            TensorArray(
                dtype=a.dtype,
                size=n,
                element_shape=a.shape if infer_shape else None,
                dynamic_size=False,
                infer_shape=infer_shape,
            )
            for a in a_flat
        ]
        if initializer is None:
            accs_ta = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(accs_ta, a_flat)]

        def compute(i: Tensor, a_flat: list[Tensor], tas: list[TensorArray]) -> tuple[Any, ...]:
            packed_elems = input_pack([ta.read(i) for ta in elems_ta])
            packed_a = output_pack(a_flat)
            a_out = fn(packed_a, packed_elems)
            assert_same_structure(elems if initializer is None else initializer, a_out)
            flat_a_out = output_flatten(a_out)
            tas = [ta.write(i, value) for ta, value in zip(tas, flat_a_out)]
            return (i - 1 if reverse else i + 1, flat_a_out, tas)

        def condition(i: Tensor, _1: Any, _2: Any) -> Tensor:
            return i >= 0 if reverse else i < n

        initial_i: Any = n - 1 - start if reverse else start
        _, _, r_a = control_flow_ops.while_loop(
            condition,
            compute,
            (initial_i, a_flat, accs_ta),
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=n,
        )
        results_flat = [r.stack() for r in r_a]
        n_static = _leading_dim(elems_flat)
        for r in results_flat:
            r.set_shape(TensorShape([n_static]).concatenate(r.shape[1:]))
        return output_pack(results_flat)


def _fold(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any,
    parallel_iterations: int,
    back_prop: bool,
    swap_memory: bool,
    name: str | None,
    default_name: str,
    from_last: bool,
) -> Any:
    _check_fn(fn)
    with name_scope(name, default_name, [elems] if not _is_sequence(elems) else flatten(elems)):
        elems_flat = [convert_to_tensor(e, name="elem") for e in flatten(elems)]
        n = _num_elements(elems_flat[0])

        def create_ta(elem: Tensor) -> TensorArray:
            return TensorArray(
                dtype=elem.dtype, size=n, dynamic_size=False, infer_shape=True
            ).unstack(elem)

        elems_ta = (
            pack_as(elems, [create_ta(e) for e in elems_flat])
            if _is_sequence(elems)
            else create_ta(elems_flat[0])
        )

        def read(index: Any) -> Any:
            if _is_sequence(elems):
                return pack_as(elems, [ta.read(index) for ta in flatten(elems_ta)])
            return elems_ta.read(index)

        if from_last:
            if initializer is None:
                i: Any = n - 1
                a = read(i)
            else:
                i = n
                a = initializer

            def compute(i: Tensor, a: Any) -> list[Any]:
                i -= 1
                return [i, fn(a, read(i))]

            def cond(i: Tensor, a: Any) -> Tensor:
                return i > 0

        else:
            if initializer is None:
                a = read(0)
                i = constant_op.constant(1)
            else:
                a = initializer
                i = constant_op.constant(0)

            def compute(i: Tensor, a: Any) -> list[Any]:
                return [i + 1, fn(a, read(i))]

            def cond(i: Tensor, a: Any) -> Tensor:
                return i < n

        _, r_a = control_flow_ops.while_loop(
            cond,
            compute,
            [i, a],
            parallel_iterations=parallel_iterations,
            back_prop=back_prop,
            swap_memory=swap_memory,
            maximum_iterations=n,
        )
        return r_a


def foldl(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
) -> Any:
    """foldl on the list of tensors unpacked from `elems` on dimension 0, first to last."""
    return _fold(
        fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, "foldl", False
    )


def foldr(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
) -> Any:
    """foldr on the list of tensors unpacked from `elems` on dimension 0, last to first."""
    return _fold(
        fn, elems, initializer, parallel_iterations, back_prop, swap_memory, name, "foldr", True
    )


__all__ = ["foldl", "foldr", "map_fn", "scan"]
