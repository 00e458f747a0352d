"""Kernels of TF 1.15's Experimental* spellings of the dataset transformations that take
functions (the plain ops' kernels run them: same inputs and attrs), of
FilterByLastComponentDataset and of assert_next (AssertNextDataset and its Experimental
spelling)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from tfcluster.framework import errors
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels import dataset_functions, dataset_grouping  # noqa: F401 - the bodies
from tfcluster.kernels.dataset_ordering import _input
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.ops.dataset_form_ops import EXPERIMENTAL_FORMS
from tfcluster.runtime import kernel_table

for _old, _plain in EXPERIMENTAL_FORMS.items():
    kernel_table.alias(_old, _plain)


# ---- FilterByLastComponentDataset ----------------------------------------------------------
class _FilterByLast(base.Dataset):
    """The elements whose last component (a scalar bool) is true, without that component."""

    def __init__(self, specs: Sequence[base.LeafSpec], data: base.Dataset) -> None:
        super().__init__(specs)
        self.data = data

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _FilterByLastIterator(self.data.iterate(pipeline))


class _FilterByLastIterator(base.ElementIterator):
    def __init__(self, it: base.ElementIterator) -> None:
        self._it = it

    def next(self) -> base.Element | None:
        while True:
            item = self._it.next()
            if item is None:
                return None
            flag = np.asarray(item[-1])
            if flag.dtype != np.bool_ or flag.size == 0:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    "The last component of FilterByLastComponentDataset's input must be a "
                    f"bool, got {flag.dtype} {list(flag.shape)}",
                )
            # TF reads the first value of the last component (its scalar<bool>() view).
            if bool(flag.reshape(-1)[0]):
                return item[:-1]

    def close(self) -> None:
        self._it.close()


@kernel("FilterByLastComponentDataset", devices=CPU_ONLY)
def filter_by_last_component_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        data = _input(ins[0], node.name)
        if len(data.specs) != len(specs) + 1:
            raise errors.InvalidArgumentError(
                None,
                None,
                f"{node.name}: the input has {len(data.specs)} components; output_types "
                f"must name all but the last ({len(specs)} given)",
            )
        return (_FilterByLast(specs, data),)

    return compute


# ---- assert_next ---------------------------------------------------------------------------
# TF's dataset type names (the tokens of an iterator's prefix) of tfcluster's datasets.
_TYPE_NAMES = {
    "_OneElement": "Tensor",
    "_Slices": "TensorSlice",
    "_Range": "Range",
    "_Generator": "Generator",
    "_Prefetch": "Prefetch",
    "_Cache": "Cache",
    # TF 1.15's batch() makes BatchDatasetV2 (V1's BatchDataset, "Batch", runs the same kernel).
    "_Batch": "BatchV2",
    "_PaddedBatch": "PaddedBatchV2",
    "_Unbatch": "Unbatch",
    "_Window": "Window",
    "_Scan": "Scan",
    "_Repeat": "Repeat",
    "_Take": "Take",
    "_Skip": "Skip",
    "_Shard": "Shard",
    "_Shuffle": "Shuffle",
    "_Zip": "Zip",
    "_Concatenate": "Concatenate",
    "_IgnoreErrors": "IgnoreErrors",
    "_Unique": "Unique",
    "_GroupByWindow": "GroupByWindow",
    "_GroupByReducer": "GroupByReducer",
    "_DenseToSparseBatch": "DenseToSparseBatch",
    "_DirectedInterleave": "DirectedInterleave",
    "_SlidingWindow": "SlidingWindow",
    "_Sleep": "Sleep",
}


def _type_name(ds: base.Dataset) -> str:
    cls = type(ds).__name__
    if cls == "_Map":
        return "ParallelMap" if getattr(ds, "parallel", 0) else "Map"
    if cls == "_Filter":
        return "TakeWhile" if getattr(ds, "take_while", False) else "Filter"
    if cls == "_AssertNext":
        return "AssertNext"
    return _TYPE_NAMES.get(cls, cls.lstrip("_"))


def _inputs(ds: base.Dataset) -> Iterator[base.Dataset]:
    for value in vars(ds).values():
        if isinstance(value, base.Dataset):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from (v for v in value if isinstance(v, base.Dataset))


def _downstream(root: base.Dataset, target: base.Dataset) -> list[str] | None:
    """The type names from the dataset consuming `target` up to `root`, nearest first; None
    when `target` is not in root's pipeline."""
    path: list[base.Dataset] = []
    seen: set[int] = set()

    def walk(ds: base.Dataset) -> bool:
        if ds is target:
            return True
        if id(ds) in seen:
            return False
        seen.add(id(ds))
        path.append(ds)
        if any(walk(d) for d in _inputs(ds)):
            return True
        path.pop()
        return False

    if not walk(root):
        return None
    return [_type_name(ds) for ds in reversed(path)]


class _AssertNext(base.Dataset):
    def __init__(
        self, specs: Sequence[base.LeafSpec], data: base.Dataset, transformations: list[str]
    ) -> None:
        super().__init__(specs)
        self.data, self.transformations = data, transformations

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        root = pipeline.root
        found = (_downstream(root, self) if root is not None else None) or []
        wanted = self.transformations
        if len(wanted) > len(found):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"Asserted next {len(wanted)} transformations but encountered only {len(found)}.",
            )
        for i, (want, got) in enumerate(zip(wanted, found)):
            if want != got:
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"Asserted {want} transformation at offset {i} but encountered {got} "
                    "transformation instead.",
                )
        return self.data.iterate(pipeline)

    def cardinality(self) -> int:
        return self.data.cardinality()


def assert_next_dataset(node: Any, xp: Any) -> Any:
    specs = base.leaf_specs(node.attrs)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        names = np.asarray(ins[1], dtype=object)
        if names.ndim != 1:
            raise errors.InvalidArgumentError(
                None, None, f"transformations must be a vector, got shape {list(names.shape)}"
            )
        wanted = [n.decode() if isinstance(n, bytes) else str(n) for n in names]
        return (_AssertNext(specs, _input(ins[0], node.name), wanted),)

    return compute


kernel("AssertNextDataset", devices=CPU_ONLY)(assert_next_dataset)
kernel("ExperimentalAssertNextDataset", devices=CPU_ONLY)(assert_next_dataset)
