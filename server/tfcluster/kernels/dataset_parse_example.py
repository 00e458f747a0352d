"""ParseExampleDataset (and its Experimental spelling): each input element, a vector of
serialized Examples, parsed into its features (ParseExample's work: kernels/parsing.py and
lib/io/example_parser). The outputs are the features in the order of their keys, sorted
(TF's kernel orders dense and sparse keys together so): a dense feature is [batch] + its
shape, a sparse one a SparseTensor [batch, longest] — or, where the op declares that
component a variant (TF's own form of a sparse component), the three tensors in a vector of
three, which DeserializeSparse reads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfcluster.framework import dtypes, errors
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.kernels import dataset_base as base
from tfcluster.kernels import sparse_serialization
from tfcluster.kernels.dataset_functions import AUTOTUNE
from tfcluster.kernels.dataset_ordering import _input
from tfcluster.kernels.parsing import _dense_specs, _sparse_specs, _vector
from tfcluster.kernels.registry import CPU_ONLY, kernel
from tfcluster.lib.io import example_parser
from tfcluster.lib.io.example_parser import FeatureSpec


class _ParseExample(base.Dataset):
    def __init__(
        self,
        specs: Sequence[base.LeafSpec],
        data: base.Dataset,
        features: tuple[list[FeatureSpec], list[FeatureSpec]],
        order: list[tuple[bool, int]],
    ) -> None:
        super().__init__(specs)
        self.data, self.features, self.order = data, features, order

    def iterate(self, pipeline: base.Pipeline) -> base.ElementIterator:
        return _ParseExampleIterator(self, self.data.iterate(pipeline))

    def cardinality(self) -> int:
        return self.data.cardinality()


class _ParseExampleIterator(base.ElementIterator):
    def __init__(self, data: _ParseExample, it: base.ElementIterator) -> None:
        self._data = data
        self._it = it

    def next(self) -> base.Element | None:
        item = self._it.next()
        if item is None:
            return None
        d = self._data
        serialized = _vector(item[0], "input")
        sparse, dense = example_parser.parse_examples(serialized, *d.features)
        out: list[Any] = []
        for (is_sparse, k), spec in zip(d.order, d.specs):
            if not is_sparse:
                out.append(dense[k])
            elif spec.kind == base.SPARSE:
                out.append(base.SparseValue(*sparse[k]))
            else:
                out.append(sparse_serialization.boxed(*sparse[k]))
        return tuple(out)

    def close(self) -> None:
        self._it.close()


def parse_example_dataset(node: Any, xp: Any) -> Any:
    attrs = node.attrs
    sparse_keys = [k.decode() if isinstance(k, bytes) else k for k in attrs["sparse_keys"]]
    dense_keys = [k.decode() if isinstance(k, bytes) else k for k in attrs["dense_keys"]]
    sparse_types = list(attrs["sparse_types"])
    dense_types = list(attrs.get("Tdense") or [])
    dense_shapes = [TensorShape(s) for s in attrs["dense_shapes"]]
    specs = base.leaf_specs(node.attrs)
    keys = sorted(
        [(k, False, i) for i, k in enumerate(dense_keys)]
        + [(k, True, i) for i, k in enumerate(sparse_keys)]
    )
    if len(keys) != len(specs):
        raise errors.InvalidArgumentError(
            None,
            None,
            f"{node.name}: output_types has {len(specs)} components for {len(keys)} features",
        )
    for (key, is_sparse, i), spec in zip(keys, specs):
        want = sparse_types[i] if is_sparse else dense_types[i]
        declared = spec.dtype
        if declared != want and not (is_sparse and declared == dtypes.variant):
            raise errors.InvalidArgumentError(
                None,
                None,
                f"{node.name}: feature '{key}' is {want.name} but output_types says "
                f"{declared.name}",
            )
    order = [(is_sparse, i) for _, is_sparse, i in keys]
    sparse_specs = _sparse_specs(sparse_keys, sparse_types)

    def compute(ctx: Any, ins: list[Any]) -> tuple[Any, ...]:
        calls = base.scalar_int(ins[1], "num_parallel_calls")
        if calls <= 0 and calls != AUTOTUNE:
            raise errors.InvalidArgumentError(
                None, None, "num_parallel_calls must be greater than zero."
            )
        dense_specs = _dense_specs(dense_keys, dense_types, dense_shapes, ins[2:])
        data = _input(ins[0], node.name)
        return (_ParseExample(specs, data, (sparse_specs, dense_specs), order),)

    return compute


kernel("ParseExampleDataset", devices=CPU_ONLY)(parse_example_dataset)
kernel("ExperimentalParseExampleDataset", devices=CPU_ONLY)(parse_example_dataset)
