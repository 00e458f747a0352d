"""tf.data.Iterator (TF 1.x): a resource of the task that holds it, read with get_next().

One-shot iterators keep their dataset's graph in a function (copied by value, as TF's
`make_one_shot_iterator` does), made into a dataset the first time the iterator runs;
initializable ones (make_initializable_iterator, Iterator.from_structure) are set to a
dataset by running an initializer; feedable ones (from_string_handle) read whichever
iterator the fed handle names.
"""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes, op_def_registry
from tfcluster.framework.func_graph import FuncGraph
from tfcluster.framework.graph import (
    Graph,
    Operation,
    Tensor,
    add_to_collection,
    colocate_with,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from tfcluster.framework.sparse_tensor import SparseTensor
from tfcluster.framework.tensor_shape import TensorShape, as_shape
from tfcluster.lib.data import static_options, stats, type_specs
from tfcluster.lib.data import structure as st
from tfcluster.lib.data.dataset import Dataset, same_graph
from tfcluster.ops import dataset_ops

GLOBAL_ITERATORS = "iterators"
# Stateful ops that a one-shot iterator's dataset may contain (they only describe data; the
# dataset ops TF 1.15 marks stateful are made anew inside TF's dataset factory too).
_CAPTURABLE_STATEFUL = {
    "MatchingFiles",
    "ExperimentalGroupByReducerDataset",
    "GeneratorDataset",
    "DatasetFromGraph",
}


class Iterator:
    """Represents the state of iterating through a Dataset."""

    def __init__(
        self,
        iterator_resource: Tensor,
        initializer: Operation | None,
        output_types: Any,
        output_shapes: Any,
        output_classes: Any,
    ) -> None:
        if output_types is None or output_shapes is None or output_classes is None:
            raise ValueError(
                "If `structure` is not specified, all of `output_types`, `output_shapes`, and "
                "`output_classes` must be specified."
            )
        self._iterator_resource = iterator_resource
        self._initializer = initializer
        self._structure = st.from_legacy(output_types, output_shapes, output_classes)
        self._element_attrs = st.op_attrs(self._structure)
        self._string_handle = dataset_ops.iterator_to_string_handle(iterator_resource)
        add_to_collection(GLOBAL_ITERATORS, iterator_resource)

    @staticmethod
    def from_structure(
        output_types: Any,
        output_shapes: Any = None,
        shared_name: str | None = None,
        output_classes: Any = None,
    ) -> Iterator:
        """A new, uninitialized iterator of the given structure (see make_initializer)."""
        types, shapes, classes = _legacy(output_types, output_shapes, output_classes)
        structure = st.from_legacy(types, shapes, classes)
        resource = dataset_ops.iterator_v2(st.op_attrs(structure), shared_name or "")
        return Iterator(resource, None, types, shapes, classes)

    @staticmethod
    def from_string_handle(
        string_handle: Any,
        output_types: Any,
        output_shapes: Any = None,
        output_classes: Any = None,
    ) -> Iterator:
        """A feedable iterator: it reads the iterator whose string_handle() it is given."""
        types, shapes, classes = _legacy(output_types, output_shapes, output_classes)
        structure = st.from_legacy(types, shapes, classes)
        handle = convert_to_tensor(string_handle, dtype=dtypes.string)
        resource = dataset_ops.iterator_from_string_handle(handle, st.op_attrs(structure))
        return Iterator(resource, None, types, shapes, classes)

    # ---- structure -------------------------------------------------------------------------
    @property
    def output_types(self) -> Any:
        return st.output_types(self._structure)

    @property
    def output_shapes(self) -> Any:
        return st.output_shapes(self._structure)

    @property
    def element_spec(self) -> Any:
        return type_specs.spec_structure(self._structure)

    @property
    def output_classes(self) -> Any:
        return st.output_classes(self._structure)

    @property
    def initializer(self) -> Operation:
        """The op that (re)initialises this iterator."""
        if self._initializer is not None:
            return self._initializer
        raise ValueError(
            "Iterator does not have an initializer. This means it was likely created using "
            "`tf.data.Dataset.make_one_shot_iterator()`. For an initializable iterator, use "
            "`tf.data.Dataset.make_initializable_iterator()` instead."
        )

    # ---- ops -------------------------------------------------------------------------------
    def make_initializer(self, dataset: Dataset, name: str | None = None) -> Operation:
        """An op that initialises this iterator on `dataset` (of a compatible structure)."""
        with name_scope(name, "make_initializer") as scope:
            if not st.same_structure(self._structure, dataset._structure):
                raise TypeError(
                    "The two structures don't have the same nested structure: expected "
                    f"{self.output_types!r} but got dataset with {dataset.output_types!r}."
                )
            ours, theirs = st.flatten(self._structure), st.flatten(dataset._structure)
            for a, b in zip(ours, theirs):
                if a.kind != b.kind:
                    raise TypeError(
                        f"Expected output classes {self.output_classes!r} but got dataset with "
                        f"output classes {dataset.output_classes!r}."
                    )
            for a, b in zip(ours, theirs):
                if a.dtype != b.dtype:
                    raise TypeError(
                        f"Expected output types {self.output_types!r} but got dataset with "
                        f"output types {dataset.output_types!r}."
                    )
            for a, b in zip(ours, theirs):
                if not a.shape.is_compatible_with(b.shape):
                    raise TypeError(
                        f"Expected output shapes compatible with {self.output_shapes!r} but got "
                        f"dataset with output shapes {dataset.output_shapes!r}."
                    )
            with colocate_with(self._iterator_resource.op):
                return dataset_ops.make_iterator(
                    dataset._variant_tensor, self._iterator_resource, name=scope
                )

    def get_next(self, name: str | None = None) -> Any:
        """The next element (a nested structure of tensors); OutOfRangeError at the end."""
        with colocate_with(self._iterator_resource.op):
            flat = dataset_ops.iterator_get_next(
                self._iterator_resource, self._element_attrs, name=name
            )
        return st.from_tensor_list(self._structure, flat)

    def string_handle(self, name: str | None = None) -> Tensor:
        """A string tensor naming this iterator (for from_string_handle)."""
        if name is None:
            return self._string_handle
        return dataset_ops.iterator_to_string_handle(self._iterator_resource, name=name)


def _legacy(types: Any, shapes: Any, classes: Any) -> tuple[Any, Any, Any]:
    types = st.map_structure(dtypes.as_dtype, types)
    if shapes is None:
        shapes = st.map_structure(lambda _: TensorShape(None), types)
    else:
        shapes = st.pack_as(types, [as_shape(s) for s in st.flatten_up_to(types, shapes)])
    if classes is None:
        classes = st.map_structure(lambda _: Tensor, types)
    return types, shapes, classes


# ---- making iterators for a dataset --------------------------------------------------------
def initializable(dataset: Dataset, shared_name: str | None = None) -> Iterator:
    same_graph(dataset)
    with colocate_with(dataset._variant_tensor.op):
        # TF 1.15 first applies the dataset's options (OptimizeDataset, ModelDataset).
        dataset = static_options.apply_options(dataset)
        dataset = stats.apply_stats_options(dataset)
        resource = dataset_ops.iterator_v2(st.op_attrs(dataset._structure), shared_name or "")
        initializer = dataset_ops.make_iterator(dataset._variant_tensor, resource)
        return Iterator(
            resource,
            initializer,
            dataset.output_types,
            dataset.output_shapes,
            dataset.output_classes,
        )


def one_shot(dataset: Dataset) -> Iterator:
    same_graph(dataset)
    with colocate_with(dataset._variant_tensor.op):
        dataset = stats.apply_stats_options(dataset)
    factory = _dataset_factory(dataset)  # its function applies the options, as TF's
    with colocate_with(dataset._variant_tensor.op):
        resource = dataset_ops.one_shot_iterator(factory, st.op_attrs(dataset._structure))
        return Iterator(
            resource, None, dataset.output_types, dataset.output_shapes, dataset.output_classes
        )


def _dataset_factory(dataset: Dataset) -> Any:
    """A function of no arguments that makes the dataset: its ops, copied by value."""
    variant = dataset._variant_tensor
    outer = variant.graph
    order = _ancestors(variant.op)
    for op in order:
        _check_capturable(op)
    fg = FuncGraph("_make_dataset", outer)
    copies: dict[Operation, Operation] = {}
    with fg.as_default(), fg.name_scope(None):
        for op in order:
            inputs = [copies[t.op].outputs[t.value_index] for t in op.inputs]
            attrs = {k: v for k, v in op.attrs.items() if k != "_class"}
            copies[op] = Graph.create_op(fg, op.type, inputs, attrs, op.name)
        copied = copies[variant.op].outputs[variant.value_index]
        made = static_options.apply_options(Dataset(copied, dataset._structure, [dataset]))
    return fg.to_function([], [made._variant_tensor])


def _ancestors(root: Operation) -> list[Operation]:
    """The ops whose outputs `root` reads, inputs first. Control inputs are not followed,
    as TF 1.15 captures by value: list_files' check that its pattern matched is lost, and
    an empty list gives an empty dataset."""
    order: list[Operation] = []
    seen: set[int] = set()
    stack: list[tuple[Operation, bool]] = [(root, False)]
    while stack:
        op, expanded = stack.pop()
        if expanded:
            order.append(op)
            continue
        if id(op) in seen:
            continue
        seen.add(id(op))
        stack.append((op, True))
        for dep in [t.op for t in op.inputs]:
            if id(dep) not in seen:
                stack.append((dep, False))
    return order


def _check_capturable(op: Operation) -> None:
    if op.type in ("Placeholder", "PlaceholderWithDefault"):
        raise ValueError(
            f"Cannot capture a placeholder (name:{op.name}, type:{op.type}) by value: a "
            "one-shot iterator cannot depend on fed values; use make_initializable_iterator() "
            "and feed the placeholder to its initializer."
        )
    op_def = op_def_registry.lookup(op.type)
    stateful = op_def is not None and op_def.stateful
    if stateful and op.type not in _CAPTURABLE_STATEFUL:
        raise ValueError(
            f"Cannot capture a stateful node (name:{op.name}, type:{op.type}) by value. A likely "
            "cause of this error is that the dataset for which you are calling "
            "`make_one_shot_iterator()` captures a stateful object, such as a `tf.Variable`, "
            "which is not supported. Use `make_initializable_iterator()` instead."
        )


# ---- tf.data / tf.compat.v1.data functions -------------------------------------------------
def make_one_shot_iterator(dataset: Dataset) -> Iterator:
    """A one-shot iterator of `dataset`."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset: Dataset, shared_name: str | None = None) -> Iterator:
    """An initializable iterator of `dataset`."""
    return dataset.make_initializable_iterator(shared_name)


def _structure_of(dataset_or_iterator: Any) -> Any:
    if isinstance(dataset_or_iterator, (Dataset, Iterator)):
        return dataset_or_iterator._structure
    raise TypeError(
        "`dataset_or_iterator` must be a Dataset or Iterator object, but got "
        f"{type(dataset_or_iterator).__name__}."
    )


def get_output_classes(dataset_or_iterator: Any) -> Any:
    """The output classes of the elements of a dataset or iterator."""
    return st.output_classes(_structure_of(dataset_or_iterator))


def get_output_shapes(dataset_or_iterator: Any) -> Any:
    """The output shapes of the elements of a dataset or iterator."""
    return st.output_shapes(_structure_of(dataset_or_iterator))


def get_output_types(dataset_or_iterator: Any) -> Any:
    """The output types of the elements of a dataset or iterator."""
    return st.output_types(_structure_of(dataset_or_iterator))


__all__ = [
    "GLOBAL_ITERATORS",
    "Iterator",
    "SparseTensor",
    "get_default_graph",
    "get_output_classes",
    "get_output_shapes",
    "get_output_types",
    "make_initializable_iterator",
    "make_one_shot_iterator",
]
