"""GeneratorDataset: a dataset made by three functions. An iterator calls init_func (with
its captured arguments) at its first element to make the state; each element is
next_func(state..., captured...); next_func raising OutOfRange ends the sequence, and
finalize_func(state..., captured...) then runs once."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import errors
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.registry import CPU_ONLY, kernel

_log = logging.getLogger(__name__)


class _Generator(base.Dataset):
    def __init__(
        self,
        specs: Sequence[base.LeafSpec],
        functions: tuple[base.DatasetFunction, base.DatasetFunction, base.DatasetFunction],
        captured: tuple[list[Any], list[Any], list[Any]],
    ) -> None:
        super().__init__(specs)
        self.functions, self.captured = functions, captured

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _GeneratorIterator(self, pipeline)


class _GeneratorIterator(base.ElementIterator):
    def __init__(self, data: _Generator, pipeline: base.Pipeline) -> None:
        self._data = data
        self._pipeline = pipeline
        self._state: list[Any] | None = None
        self._finished = False

    def next(self) -> base.Element | None:
        if self._finished:
            return None
        (init, next_fn, finalize), (init_args, next_args, final_args) = (
            self._data.functions,
            self._data.captured,
        )
        if self._state is None:
            self._state = list(init.call_tensors(self._pipeline, init_args))
        try:
            results = next_fn.call_tensors(self._pipeline, [*self._state, *next_args])
        except errors.OutOfRangeError:
            self._finished = True
            finalize.call_tensors(self._pipeline, [*self._state, *final_args])
            return None
        return base.element_from_tensors(results, self._data.specs)

    def close(self) -> None:
        """An iterator dropped before the end still runs finalize_func once (as TF's does
        when it is destroyed); its error only goes to the log, as TF's."""
        if self._state is None or self._finished:
            return
        self._finished = True
        finalize, final_args = self._data.functions[2], self._data.captured[2]
        try:
            finalize.call_tensors(self._pipeline, [*self._state, *final_args])
        except errors.OpError as e:
            _log.warning("GeneratorDataset finalize_func failed: %s", e)


@kernel("GeneratorDataset", devices=CPU_ONLY)
def generator_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)
    functions = tuple(
        base.DatasetFunction(node.attrs[attr], f"{node.name} {attr}", node.device)
        for attr in ("init_func", "next_func", "finalize_func")
    )
    counts = [len(node.attrs.get(a) or []) for a in ("Tinit_func_args", "Tnext_func_args")]

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        init_args = list(ins[: counts[0]])
        next_args = list(ins[counts[0] : counts[0] + counts[1]])
        final_args = list(ins[counts[0] + counts[1] :])
        return (_Generator(specs, functions, (init_args, next_args, final_args)),)  # type: ignore[arg-type]

    return compute
