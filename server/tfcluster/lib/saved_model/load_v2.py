"""tf.saved_model.load_v2 (TF 1.15, graph mode): the objects of a SavedModel's object graph
rebuilt in the default graph.

Each saved variable becomes a resource variable of its saved name whose initializer restores
its value from variables/ (so `tf.global_variables_initializer()` loads the values, as in
TF); each saved tf.function becomes a callable adding a call of the matching concrete function
(the library's FunctionDef) with the variables' handles bound; user objects come back as
`_UserObject`s carrying their children as attributes; `.signatures` maps each signature key
to a function taking the inputs by keyword and returning a dict of tensors."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

from tfcluster.framework import dtypes, errors, function_library
from tfcluster.framework.func_graph import parse_function
from tfcluster.framework.graph import Tensor, convert_to_tensor, get_default_graph, init_scope
from tfcluster.framework.tensor_bundle import open_checkpoint
from tfcluster.framework.tensor_shape import TensorShape
from tfcluster.framework.tensor_util import make_ndarray
from tfcluster.framework.type_spec import TensorSpec
from tfcluster.lib.saved_model import constants, nested_structure_coder
from tfcluster.lib.saved_model.loader import parse_saved_model
from tfcluster.ops import array_ops, constant_op, function_call_ops, io_ops, nest
from tfcluster.ops.variables import Variable
from tfcluster.protos.trackable_object_graph_pb2 import TrackableObjectGraph

_OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_LIST_WRAPPER = "trackable_list_wrapper"
_DICT_WRAPPER = "trackable_dict_wrapper"


class _UserObject:
    """A saved object whose Python class is not restored: its children as attributes."""

    tensorflow_version: str
    tensorflow_git_version: str
    signatures: Any


class _SignatureMap(Mapping):  # type: ignore[type-arg]
    """Signature key -> function (kwargs in, dict of tensors out)."""

    def __init__(self) -> None:
        self._signatures: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        return self._signatures[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._signatures)

    def __len__(self) -> int:
        return len(self._signatures)

    def __repr__(self) -> str:
        return f"_SignatureMap({self._signatures})"


class _ConcreteCall:
    """One saved concrete function: its body, the variables it is bound to, its signature."""

    def __init__(self, name: str, body: Any, proto: Any, bound: list[Any]) -> None:
        self.name = name
        self.input_signature = nested_structure_coder.decode(proto.canonicalized_input_signature)
        self.output_signature = nested_structure_coder.decode(proto.output_signature)
        specs = _specs(self.input_signature)
        parsed = parse_function(body, f"function '{name}'")
        outputs = _specs(self.output_signature)
        self.built = function_call_ops.BuiltFunction(
            captured=[v.handle if isinstance(v, Variable) else v for v in bound],  # type: ignore[attr-defined]
            func=body,
            stateful=True,
            result_dtypes=list(parsed.result_dtypes),
            result_shapes=(
                [s.shape for s in outputs]
                if len(outputs) == len(parsed.result_dtypes)
                else [TensorShape(None)] * len(parsed.result_dtypes)
            ),
            arg_shapes=[s.shape for s in specs],
        )
        self.flat_specs = specs

    def matches(self, flat: list[Any]) -> list[Tensor] | None:
        """The arguments as tensors if they fit the signature, else None."""
        if len(flat) != len(self.flat_specs):
            return None
        tensors = []
        for value, spec in zip(flat, self.flat_specs):
            try:
                t = convert_to_tensor(value, dtype=spec.dtype)
            except (TypeError, ValueError):
                return None
            if t.dtype.base_dtype != spec.dtype or not spec.shape.is_compatible_with(t.shape):
                return None
            tensors.append(t)
        return tensors

    def call(self, tensors: list[Tensor]) -> Any:
        op = function_call_ops.call(get_default_graph(), tensors, self.built)
        it = iter(op.outputs)
        leaves = [
            next(it) if isinstance(s, TensorSpec) else s for s in _leaves(self.output_signature)
        ]
        if self.output_signature is None:
            return None
        return nest.pack_sequence_as(self.output_signature, leaves)


def _leaves(structure: Any) -> list[Any]:
    return [] if structure is None else nest.flatten(structure)


def _specs(structure: Any) -> list[TensorSpec]:
    return [s for s in _leaves(structure) if isinstance(s, TensorSpec)]


class RestoredFunction:
    """A saved tf.function: called with arguments that fit one of its saved concrete
    functions (by its argument spec), it adds a call of that function."""

    def __init__(self, proto: Any, concretes: list[_ConcreteCall]) -> None:
        spec = proto.function_spec
        self._argspec = (
            nested_structure_coder.decode(spec.fullargspec)
            if spec.HasField("fullargspec")
            else None
        )
        self._is_method = spec.is_method
        self._concretes = concretes

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        if not kwargs or self._argspec is None:
            if kwargs:
                raise TypeError(f"Unexpected keyword arguments {sorted(kwargs)}")
            return args
        names = list(self._argspec.args)[1 if self._is_method else 0 :]
        bound = list(args)
        for name in names[len(args) :]:
            if name not in kwargs:
                break
            bound.append(kwargs.pop(name))
        if kwargs:
            raise TypeError(f"Unexpected keyword arguments {sorted(kwargs)}")
        return tuple(bound)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        flat = nest.flatten(list(self._bind(args, dict(kwargs))))
        for concrete in self._concretes:
            tensors = concrete.matches(flat)
            if tensors is not None:
                return concrete.call(tensors)
        raise ValueError(
            "Could not find matching function to call loaded from the SavedModel. Got:\n"
            f"  Positional arguments ({len(args)} total): {args}\n  Keyword arguments: {kwargs}\n"
            "Expected these arguments to match one of the following "
            f"{len(self._concretes)} option(s): "
            + ", ".join(str(c.input_signature) for c in self._concretes)
        )


class _BareFunction:
    """A signature: a concrete function taking its inputs by keyword."""

    def __init__(self, proto: Any, concrete: _ConcreteCall) -> None:
        self._keywords = list(proto.argument_keywords)
        self._positional = int(proto.allowed_positional_arguments)
        self._concrete = concrete

    @property
    def structured_input_signature(self) -> Any:
        return self._concrete.input_signature

    @property
    def structured_outputs(self) -> Any:
        return self._concrete.output_signature

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) > self._positional:
            raise TypeError(
                f"Expected at most {self._positional} positional arguments, got {len(args)}"
            )
        missing = [k for k in self._keywords[len(args) :] if k not in kwargs]
        if missing or set(kwargs) - set(self._keywords):
            raise TypeError(
                f"Expected argument names {self._keywords} but got values for "
                f"{sorted(kwargs)}. Missing: {missing}."
            )
        values = list(args) + [kwargs[k] for k in self._keywords[len(args) :]]
        tensors = self._concrete.matches(values)
        if tensors is None:
            raise ValueError(
                f"The arguments {values} do not fit the signature {self._concrete.input_signature}"
            )
        return self._concrete.call(tensors)


def _meta_graph(saved_model: Any, export_dir: str, tags: Any) -> Any:
    """The MetaGraph to load: a SavedModel with an object graph has exactly one."""
    graphs = list(saved_model.meta_graphs)
    if tags is not None and not isinstance(tags, set):
        tags = nest.flatten(tags)
    if len(graphs) == 1 and graphs[0].HasField("object_graph_def"):
        have = list(graphs[0].meta_info_def.tags)
        if tags is not None and set(tags) != set(have):
            raise ValueError(
                f"The SavedModel at {export_dir} has one MetaGraph with tags {have}, but got an "
                f"incompatible argument tags={tags} to tf.saved_model.load. You may omit it, "
                "pass 'None', or pass matching tags."
            )
        return graphs[0]
    if tags is None and len(graphs) != 1:
        tag_sets = [list(g.meta_info_def.tags) for g in graphs]
        raise ValueError(
            "Importing a SavedModel with tf.saved_model.load requires a 'tags=' argument if "
            f"there is more than one MetaGraph. Got 'tags=None', but there are {len(graphs)} "
            f"MetaGraphs in the SavedModel with tag sets {tag_sets}. Pass a 'tags=' argument "
            "to load this SavedModel."
        )
    raise errors.UnimplementedError(
        None,
        None,
        "tf.saved_model.load_v2 of a SavedModel without an object graph (TF 1.x "
        "SavedModelBuilder's, which TF wraps with load_v1_in_v2): use "
        "tf.saved_model.loader.load",
    )


def _checkpoint_keys(prefix: str, saved: Any) -> dict[int, str]:
    """Saved node id -> its variable's checkpoint key, matched from the root by children
    names in the checkpoint's object graph."""
    reader = open_checkpoint(prefix)
    graph = TrackableObjectGraph()
    raw = reader.get_tensor(_OBJECT_GRAPH_KEY)
    graph.ParseFromString(raw.item() if hasattr(raw, "item") else raw)
    matched = {0: 0}
    queue = [0]
    while queue:
        node = queue.pop(0)
        ckpt_children = {c.local_name: c.node_id for c in graph.nodes[matched[node]].children}
        for child in saved.nodes[node].children:
            found = ckpt_children.get(child.local_name)
            if found is not None and child.node_id not in matched:
                matched[child.node_id] = found
                queue.append(child.node_id)
    for node, ckpt in list(matched.items()):
        # Optimizer slots: by their variable and slot name.
        ckpt_slots = {
            (ref.original_variable_node_id, ref.slot_name): ref.slot_variable_node_id
            for ref in graph.nodes[ckpt].slot_variables
        }
        for ref in saved.nodes[node].slot_variables:
            found = ckpt_slots.get((matched.get(ref.original_variable_node_id), ref.slot_name))
            if found is not None:
                matched[ref.slot_variable_node_id] = found
    keys = {}
    for node, ckpt in matched.items():
        for attr in graph.nodes[ckpt].attributes:
            if attr.name == "VARIABLE_VALUE":
                keys[node] = attr.checkpoint_key
    return keys


def _variable(proto: Any, prefix: str, key: str | None) -> Variable:
    dtype = dtypes.as_dtype(proto.dtype)
    shape = TensorShape(proto.shape)
    if key is None:
        raise errors.NotFoundError(
            None, None, f"Variable {proto.name!r} has no value in the SavedModel's checkpoint"
        )
    with init_scope():
        value = io_ops.restore_v2(prefix, [key], [""], [dtype])[0]
        value = array_ops.identity(value)
        value.set_shape(shape)
        return Variable(
            value,
            name=proto.name or None,
            trainable=proto.trainable,
            dtype=dtype,
            use_resource=True,
        )


def _constant(graph_def: Any, operation: str) -> Tensor:
    """A captured constant: the graph's Const of that name, made in the default graph."""
    for nd in graph_def.node:
        if nd.name == operation and nd.op == "Const":
            with init_scope():
                return constant_op.constant(make_ndarray(nd.attr["value"].tensor))
    raise errors.NotFoundError(None, None, f"The SavedModel's graph has no Const {operation!r}")


def load(export_dir: str, tags: Any = None) -> Any:
    """The root object of export_dir's SavedModel, rebuilt in the default graph."""
    export_dir = os.fspath(export_dir)
    saved_model = parse_saved_model(export_dir)
    meta = _meta_graph(saved_model, export_dir, tags)
    saved = meta.object_graph_def
    prefix = os.path.join(export_dir, constants.VARIABLES_DIRECTORY, constants.VARIABLES_FILENAME)
    keys = _checkpoint_keys(prefix, saved)
    objects: dict[int, Any] = {}
    for i, node in enumerate(saved.nodes):
        kind = node.WhichOneof("kind")
        if kind == "variable":
            objects[i] = _variable(node.variable, prefix, keys.get(i))
        elif kind == "constant":
            objects[i] = _constant(meta.graph_def, node.constant.operation)
        elif kind == "user_object" and node.user_object.identifier == "signature_map":
            objects[i] = _SignatureMap()
        elif kind == "user_object" and node.user_object.identifier == _LIST_WRAPPER:
            objects[i] = []
        elif kind == "user_object" and node.user_object.identifier == _DICT_WRAPPER:
            objects[i] = {}
        elif kind == "user_object":
            objects[i] = _UserObject()
    bodies = function_library.library_bodies(meta.graph_def.library, list(saved.concrete_functions))
    concretes = {
        name: _ConcreteCall(name, bodies[name], proto, [objects[n] for n in proto.bound_inputs])
        for name, proto in saved.concrete_functions.items()
    }
    for i, node in enumerate(saved.nodes):
        kind = node.WhichOneof("kind")
        if kind == "function":
            objects[i] = RestoredFunction(
                node.function, [concretes[n] for n in node.function.concrete_functions]
            )
        elif kind == "bare_concrete_function":
            bare = node.bare_concrete_function
            objects[i] = _BareFunction(bare, concretes[bare.concrete_function_name])
    for i, node in enumerate(saved.nodes):
        parent = objects.get(i)
        for child in node.children:
            if child.node_id not in objects:
                continue
            if isinstance(parent, _SignatureMap):
                parent._signatures[child.local_name] = objects[child.node_id]
            elif isinstance(parent, list):
                parent.append(objects[child.node_id])
            elif isinstance(parent, dict):
                parent[child.local_name] = objects[child.node_id]
            elif isinstance(parent, _UserObject):
                setattr(parent, child.local_name, objects[child.node_id])
    root = objects[0]
    if isinstance(root, _UserObject):
        root.tensorflow_version = meta.meta_info_def.tensorflow_version
        root.tensorflow_git_version = meta.meta_info_def.tensorflow_git_version
        if not hasattr(root, "signatures"):
            root.signatures = _SignatureMap()
    return root
