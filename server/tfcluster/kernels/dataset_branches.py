"""ChooseFastestBranchDataset: several functions (branches), each turning a dataset into an
equivalent one, tried in turn on consecutive pieces of the input; the one that made its
elements fastest then reads the rest. A branch reads `ratio_numerator / ratio_denominator`
input elements per element it makes, so its piece holds num_elements_per_branch times that
many."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from tfcluster.framework import errors
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels.dataset_ordering import _input
from tfcluster.kernels.registry import CPU_ONLY, kernel


class _Piece(base.Dataset):
    """Up to `limit` elements (None: all that are left) of an iterator shared by the pieces."""

    def __init__(
        self, specs: Sequence[base.LeafSpec], source: base.ElementIterator, limit: int | None
    ) -> None:
        super().__init__(specs)
        self.source, self.limit = source, limit

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _PieceIterator(self.source, self.limit)


class _PieceIterator(base.ElementIterator):
    def __init__(self, source: base.ElementIterator, limit: int | None) -> None:
        self._source, self._left = source, limit

    def next(self) -> base.Element | None:
        if self._left is not None:
            if self._left <= 0:
                return None
            self._left -= 1
        return self._source.next()


class _Branches(base.Dataset):
    def __init__(
        self,
        specs: Sequence[base.LeafSpec],
        data: base.Dataset,
        branches: list[tuple[base.DatasetFunction, list[Any]]],
        per_branch: int,
        piece: int,
    ) -> None:
        super().__init__(specs)
        self.data, self.branches, self.per_branch, self.piece = data, branches, per_branch, piece

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _BranchesIterator(self, pipeline)


class _BranchesIterator(base.ElementIterator):
    def __init__(self, data: _Branches, pipeline: base.Pipeline) -> None:
        self._data = data
        self._pipeline = pipeline
        self._source = data.data.iterate(pipeline)
        self._spent = [0.0] * len(data.branches)
        self._trial = 0  # the branch on trial; len(branches) once one is chosen
        self._made = 0  # elements the branch on trial has made
        self._current: base.ElementIterator | None = None

    def _start(self, index: int, limit: int | None) -> base.ElementIterator:
        fn, captured = self._data.branches[index]
        piece = _Piece(self._data.data.specs, self._source, limit)
        (made,) = fn.call_tensors(self._pipeline, [piece, *captured])
        if not isinstance(made, base.Dataset):
            raise errors.InvalidArgumentError(
                None, None, f"{fn.what} must return a dataset, got {type(made).__name__}"
            )
        return made.iterate(self._pipeline)

    def next(self) -> base.Element | None:
        d = self._data
        while self._trial < len(d.branches):
            if self._current is None:
                self._current = self._start(self._trial, d.piece)
                self._made = 0
            began = time.perf_counter()
            item = self._current.next()
            self._spent[self._trial] += time.perf_counter() - began
            if item is not None:
                self._made += 1
                if self._made >= d.per_branch:
                    self._next_trial()
                return item
            if self._made < d.per_branch:
                return None  # the input ran out during the trial
            self._next_trial()
        if self._current is None:
            best = min(range(len(d.branches)), key=self._spent.__getitem__)
            self._current = self._start(best, None)
        return self._current.next()

    def _next_trial(self) -> None:
        if self._current is not None:
            self._current.close()
        self._current = None
        self._trial += 1

    def close(self) -> None:
        if self._current is not None:
            self._current.close()
        self._source.close()


@kernel("ChooseFastestBranchDataset", devices=CPU_ONLY)
def choose_fastest_branch_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)
    functions = [
        base.DatasetFunction(f, f"{node.name} branches[{i}]", node.device)
        for i, f in enumerate(node.attrs["branches"])
    ]
    lengths = [int(n) for n in node.attrs["other_arguments_lengths"]]
    per_branch = int(node.attrs["num_elements_per_branch"])
    if len(lengths) != len(functions):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"{node.name}: other_arguments_lengths has {len(lengths)} entries for "
            f"{len(functions)} branches",
        )

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _input(ins[0], node.name)
        numerator = base.scalar_int(ins[1], "ratio_numerator")
        denominator = base.scalar_int(ins[2], "ratio_denominator")
        if numerator <= 0 or denominator <= 0:
            raise errors.InvalidArgumentError(
                None, None, "`ratio_numerator` and `ratio_denominator` must be positive"
            )
        if per_branch <= 0:
            raise errors.InvalidArgumentError(
                None, None, "`num_elements_per_branch` must be positive"
            )
        captured, at = [], 3
        for fn, n in zip(functions, lengths):
            captured.append((fn, list(ins[at : at + n])))
            at += n
        piece = per_branch * numerator // denominator
        return (_Branches(specs, data, captured, per_branch, piece),)

    return compute
