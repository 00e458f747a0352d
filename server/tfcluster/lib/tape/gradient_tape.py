"""tf.GradientTape in graph mode, as TF 1.15 runs it when a TF1 program builds a graph.

The tape records which ops are created while it is active (and not paused by
stop_recording) and which tensors it watches from when. An op is *on the tape* when it was
created while recording and reads a watched tensor, a trainable variable (when
watch_accessed_variables) or the output of an op on the tape: the ops TF's tape would have
recorded. tape.gradient then runs the graph's reverse pass over those ops only, building
each gradient op in the caller's name scope (TF's tape makes no "gradients" or "<op>_grad"
scopes), from a starting gradient of ones named "ones" as TF's does.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import (
    Graph,
    GraphKeys,
    Operation,
    Tensor,
    convert_to_tensor,
    get_default_graph,
)
from tfcluster.framework.indexed_slices import IndexedSlices
from tfcluster.gradients.gradient_options import (
    UnconnectedGradients,
    unconnected_gradients_value,
)
from tfcluster.gradients.gradients_impl import gradients_of_graph
from tfcluster.ops import array_ops, nest
from tfcluster.ops.variables import Variable

_log = logging.getLogger("tensorflow")


class GradientTape:
    """Records operations for automatic differentiation (TF 1.15's GradientTape)."""

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._graph: Graph | None = None
        self._recording = False
        self._segments: list[tuple[int, int]] = []
        self._segment_start = 0
        # (op count when watched, tensor): a tensor counts as watched for ops made after.
        self._watched: list[tuple[int, Tensor]] = []
        self._watched_vars: list[Variable] = []
        self._used = False

    # ---- recording ---------------------------------------------------------------------
    def __enter__(self) -> GradientTape:
        if self._recording:
            raise ValueError(
                "Tape is still recording, This can happen if you try to re-enter an "
                "already-active tape."
            )
        self._push()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._recording:
            self._pop()

    def _push(self) -> None:
        graph = get_default_graph()
        if self._graph is None:
            self._graph = graph
        elif graph is not self._graph:
            raise ValueError("A GradientTape records in one graph; it was entered in another")
        self._recording = True
        self._segment_start = self._op_count()

    def _pop(self) -> None:
        self._segments.append((self._segment_start, self._op_count()))
        self._recording = False

    def _op_count(self) -> int:
        assert self._graph is not None
        return len(self._graph._nodes_in_order)

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """Ops made inside are not recorded."""
        if not self._recording:
            raise ValueError("Tape must be recording.")
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self) -> None:
        """Forgets everything recorded so far (recording goes on if it was on)."""
        recording = self._recording
        self._segments = []
        self._watched = []
        self._watched_vars = []
        self._used = False
        if recording:
            self._segment_start = self._op_count()

    def watch(self, tensor: Any) -> None:
        """Ensures the tensors (or variables) in a nest are traced by this tape."""
        if self._graph is None:
            self._graph = get_default_graph()
        for t in nest.flatten(tensor):
            if isinstance(t, Variable):
                if t not in self._watched_vars:
                    self._watched_vars.append(t)
                continue
            if not isinstance(t, Tensor):
                t = convert_to_tensor(t)
            if not (t.dtype.base_dtype.is_floating or t.dtype.base_dtype.is_complex):
                _log.warning(
                    "The dtype of the watched tensor must be floating (e.g. tf.float32), got %r",
                    t.dtype,
                )
            self._watched.append((self._op_count(), t))

    def watched_variables(self) -> tuple[Variable, ...]:
        """The variables watched so far, explicitly or by being read on the tape."""
        self._trace()
        return tuple(self._watched_vars)

    # ---- what is on the tape ---------------------------------------------------------------
    def _recorded_ranges(self) -> list[tuple[int, int]]:
        ranges = list(self._segments)
        if self._recording:
            ranges.append((self._segment_start, self._op_count()))
        return ranges

    def _trace(self) -> tuple[set[Operation], set[Tensor]]:
        """The ops on the tape and the tensors they (and watching) make traced."""
        if self._graph is None:
            return set(), set()
        ops = self._graph._nodes_in_order
        var_of = self._variable_tensors()
        watched = sorted(self._watched, key=lambda w: w[0])
        traced: set[Tensor] = set()
        on_tape: set[Operation] = set()
        w = 0
        for start, end in self._recorded_ranges():
            for i in range(start, end):
                while w < len(watched) and watched[w][0] <= i:
                    traced.add(watched[w][1])
                    w += 1
                op = ops[i]
                reads = False
                for t in op.inputs:
                    if t in traced:
                        reads = True
                    var = var_of.get(t)
                    if var is not None and (var in self._watched_vars or self._auto_watch(var)):
                        reads = True
                        if var not in self._watched_vars:
                            self._watched_vars.append(var)
                if reads:
                    on_tape.add(op)
                    traced.update(op.outputs)
        traced.update(t for _, t in watched)
        return on_tape, traced

    def _auto_watch(self, var: Variable) -> bool:
        return self._watch_accessed_variables and var.trainable

    def _variable_tensors(self) -> dict[Tensor, Variable]:
        """A variable's reference and its value tensor -> the variable."""
        assert self._graph is not None
        found: dict[Tensor, Variable] = {}
        variables = list(self._graph.get_collection(GraphKeys.GLOBAL_VARIABLES))
        variables += self._graph.get_collection(GraphKeys.LOCAL_VARIABLES)
        variables += self._graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)
        variables += self._watched_vars
        for v in variables:
            if isinstance(v, Variable) and v.graph is self._graph:
                found[v._ref()] = v
                found[v._graph_element] = v
        return found

    # ---- gradients -------------------------------------------------------------------------
    def gradient(
        self,
        target: Any,
        sources: Any,
        output_gradients: Any = None,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
    ) -> Any:
        """d(target)/d(sources), symbolic tensors shaped like `sources`."""
        if self._used and not self._persistent:
            raise RuntimeError(
                "GradientTape.gradient can only be called once on non-persistent tapes."
            )
        if self._recording:
            if not self._persistent:
                self._pop()  # TF stops a non-persistent tape here for good
            else:
                _log.warning(
                    "Calling GradientTape.gradient on a persistent tape inside its context is "
                    "significantly less efficient than calling it outside the context (it "
                    "causes the gradient ops to be recorded on the tape, leading to increased "
                    "CPU and memory usage). Only call GradientTape.gradient inside the context "
                    "if you actually want to trace the gradient in order to compute higher "
                    "order derivatives."
                )
        unconnected = unconnected_gradients_value(unconnected_gradients)
        flat_targets = [_as_tensor(t) for t in nest.flatten(target)]
        flat_sources = nest.flatten(sources)
        for s in flat_sources:
            if isinstance(s, Tensor) and not (
                s.dtype.base_dtype.is_floating or s.dtype.base_dtype.is_complex
            ):
                _log.warning("The dtype of the source tensor must be floating, got %r", s.dtype)
        grads_in: list[Any] = [None] * len(flat_targets)
        if output_gradients is not None:
            grads_in = [
                None if g is None else convert_to_tensor(g) for g in nest.flatten(output_gradients)
            ]
            if len(grads_in) != len(flat_targets):
                raise ValueError(
                    f"{len(grads_in)} output_gradients given for {len(flat_targets)} targets"
                )
        on_tape, traced = self._trace()
        if not self._persistent:
            self._used = True
        result = self._gradients(flat_targets, flat_sources, grads_in, on_tape, traced)
        out = []
        for g, s in zip(result, flat_sources):
            if g is None and unconnected is UnconnectedGradients.ZERO:
                ref = s._graph_element if isinstance(s, Variable) else _as_tensor(s)
                g = array_ops.zeros(
                    ref.shape if ref.shape.is_fully_defined() else array_ops.shape(ref),
                    dtype=ref.dtype.base_dtype,
                )
            out.append(g)
        return nest.pack_sequence_as(sources, out)

    def _gradients(
        self,
        targets: list[Tensor],
        sources: list[Any],
        grads_in: list[Any],
        on_tape: set[Operation],
        traced: set[Tensor],
    ) -> list[Any]:
        xs: list[Tensor] = []
        where: list[int] = []
        allowed = set(on_tape)
        for i, s in enumerate(sources):
            if isinstance(s, Variable):
                if s not in self._watched_vars:
                    continue
                ref = s._ref()
                allowed.add(ref.op)
                allowed.add(s._graph_element.op)
                xs.append(ref)
            else:
                t = _as_tensor(s)
                if t not in traced:
                    continue
                allowed.add(t.op)
                xs.append(t)
            where.append(i)
        result: list[Any] = [None] * len(sources)
        ys = [t for t in targets if t in traced or t.op in allowed]
        if not xs or not ys:
            return result
        grad_ys = []
        for t, g in zip(targets, grads_in):
            if t not in ys:
                continue
            if g is None:
                g = _ones_like_target(t)
            grad_ys.append(g)
        grads = gradients_of_graph(
            ys,
            xs,
            grad_ys,
            own_scope=False,
            allowed_ops=allowed,
            op_scopes=False,
        )
        for i, g in zip(where, grads):
            result[i] = g
        return result

    # ---- Jacobians -------------------------------------------------------------------------
    def jacobian(
        self,
        target: Any,
        sources: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        parallel_iterations: Any = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """d(target[i...])/d(source[j...]) for each source, shaped target.shape + source.shape."""
        target = _as_tensor(target)
        size = target.shape.num_elements()
        if size is None:
            raise ValueError(
                "GradientTape.jacobian in graph mode needs a target of known size in tfcluster; "
                f"{target.name} has shape {target.shape}"
            )
        flat_sources = nest.flatten(sources)
        persistent = self._persistent
        self._persistent = True  # each row is one more gradient of the same tape
        try:
            with self._recorded():
                flat_target = array_ops.reshape(target, [-1])
            rows: list[list[Any]] = []
            for k in range(size):
                with self._recorded():
                    row_target = flat_target[k]
                rows.append(
                    nest.flatten(
                        self.gradient(
                            row_target, sources, unconnected_gradients=unconnected_gradients
                        )
                    )
                )
        finally:
            self._persistent = persistent
            if not persistent:
                self._used = True
        out: list[Any] = []
        for j, s in enumerate(flat_sources):
            ref = s._graph_element if isinstance(s, Variable) else _as_tensor(s)
            column = [r[j] for r in rows]
            if all(g is None for g in column):
                out.append(None)
                continue
            column = [_dense(g) if g is not None else array_ops.zeros_like(ref) for g in column]
            stacked = array_ops.stack(column)
            new_shape = array_ops.concat([array_ops.shape(target), array_ops.shape(ref)], 0)
            out.append(array_ops.reshape(stacked, new_shape))
        return nest.pack_sequence_as(sources, out)

    def batch_jacobian(
        self,
        target: Any,
        source: Any,
        unconnected_gradients: Any = UnconnectedGradients.NONE,
        parallel_iterations: Any = None,
        experimental_use_pfor: bool = True,
    ) -> Any:
        """d(target[b, i...])/d(source[b, j...]): shape [batch] + target_rest + source_rest."""
        target = _as_tensor(target)
        source_t = source._graph_element if isinstance(source, Variable) else _as_tensor(source)
        if target.shape.ndims is None or target.shape.ndims < 1:
            raise ValueError(f"target must have rank at least 1, got {target.shape}")
        if source_t.shape.ndims is None or source_t.shape.ndims < 1:
            raise ValueError(f"source must have rank at least 1, got {source_t.shape}")
        batch = target.shape[0]
        batch = batch if isinstance(batch, int) or batch is None else batch.value
        if source_t.shape[0] is not None and batch is not None:
            sb = source_t.shape[0]
            sb = sb if isinstance(sb, int) else sb.value
            if sb is not None and sb != batch:
                raise ValueError(
                    f"Need first dimension of target shape ({target.shape}) and source shape "
                    f"({source_t.shape}) to match."
                )
        per_example = target.shape[1:].num_elements()
        if per_example is None:
            raise ValueError(
                "GradientTape.batch_jacobian in graph mode needs the target's per-example size "
                f"known in tfcluster; {target.name} has shape {target.shape}"
            )
        persistent = self._persistent
        self._persistent = True
        try:
            with self._recorded():
                flat_target = array_ops.reshape(target, [array_ops.shape(target)[0], -1])
            columns = []
            for k in range(per_example):
                with self._recorded():
                    column_target = flat_target[:, k]
                g = self.gradient(
                    column_target, source, unconnected_gradients=unconnected_gradients
                )
                columns.append(g)
        finally:
            self._persistent = persistent
            if not persistent:
                self._used = True
        if all(g is None for g in columns):
            return None
        columns = [_dense(g) if g is not None else array_ops.zeros_like(source_t) for g in columns]
        # [batch, per_example, source_rest...], then split per_example back into target_rest.
        stacked = array_ops.stack(columns, axis=1)
        new_shape = array_ops.concat([array_ops.shape(target), array_ops.shape(source_t)[1:]], 0)
        return array_ops.reshape(stacked, new_shape)

    @contextlib.contextmanager
    def _recorded(self) -> Iterator[None]:
        """Records the slicing of a Jacobian's target even outside the tape's context, so
        that each slice can be differentiated."""
        if self._recording:
            yield
            return
        self._push()
        try:
            yield
        finally:
            self._pop()


def _as_tensor(x: Any) -> Tensor:
    if isinstance(x, Variable):
        return x.value()
    if isinstance(x, Tensor):
        return x
    return convert_to_tensor(x)


def _dense(g: Any) -> Any:
    if isinstance(g, IndexedSlices):
        from tfcluster.ops import indexed_slices_ops

        return indexed_slices_ops.indexed_slices_to_tensor(g)
    return g


def _ones_like_target(t: Tensor) -> Tensor:
    """TF's tape starts from array_ops.ones(target's shape), named "ones"."""
    if t.dtype.base_dtype == dtypes.string:
        raise TypeError(f"Cannot differentiate a string tensor {t.name}")
    if t.shape.is_fully_defined():
        return array_ops.ones(t.shape.as_list(), dtype=t.dtype.base_dtype)
    return array_ops.ones(array_ops.shape(t), dtype=t.dtype.base_dtype)


__all__ = ["GradientTape"]
