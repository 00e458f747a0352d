"""The graph, function library, SavedObjectGraph and signature defs that
tf.saved_model.save writes for a SaveableView: a resource variable (VarHandleOp) per saved
variable, each traced function as a FunctionDef taking those variables' handles, a wrapper
function per signature called from `<signature>_<argument>` placeholders, and the SaverDef's
save (SaveV2 of the variables and the object graph) and restore (RestoreV2, AssignVariableOp)
ops."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np

from tfcluster.framework import dtypes, function_library
from tfcluster.framework.graph import Graph, Tensor, get_default_graph
from tfcluster.framework.tensor_util import constant_value, make_tensor_proto
from tfcluster.framework.type_spec import TensorSpec
from tfcluster.lib.function.def_function import ConcreteFunction
from tfcluster.lib.saved_model import nested_structure_coder, object_graph
from tfcluster.lib.saved_model import signature_constants as sigs
from tfcluster.lib.saved_model.saveable_view import SaveableView, SignatureMap
from tfcluster.lib.saved_model.signature_serialization import input_names, output_keys
from tfcluster.ops import function_call_ops, nest
from tfcluster.ops.variables import Variable
from tfcluster.protos import (
    attr_value_pb2,
    function_pb2,
    graph_pb2,
    meta_graph_pb2,
    node_def_pb2,
    saved_object_graph_pb2,
)

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


class UserObjects(Protocol):
    """What a caller (Keras's model.save) adds: objects' identifiers and metadata, and
    children beyond those object_graph.children finds."""

    def identify(self, obj: Any) -> tuple[str, str] | None: ...

    def children(self, obj: Any) -> list[tuple[str, Any]]: ...


_SIGNATURE_MAP = "signature_map"


def _attr(value: Any) -> attr_value_pb2.AttrValue:
    out = attr_value_pb2.AttrValue()
    if isinstance(value, dtypes.DType):
        out.type = value.as_datatype_enum  # type: ignore[assignment]
    elif isinstance(value, attr_value_pb2.NameAttrList):
        out.func.CopyFrom(value)
    elif isinstance(value, list):
        out.list.type.extend(v.as_datatype_enum for v in value)
    elif isinstance(value, (str, bytes)):
        out.s = value.encode() if isinstance(value, str) else value
    elif isinstance(value, np.ndarray):
        out.tensor.CopyFrom(make_tensor_proto(value))
    else:
        out.shape.CopyFrom(value.as_proto())
    return out


def _node(name: str, op: str, inputs: list[str], **attrs: Any) -> node_def_pb2.NodeDef:
    nd = node_def_pb2.NodeDef(name=name, op=op, input=inputs)
    for key, value in attrs.items():
        nd.attr[key].CopyFrom(_attr(value))
    return nd


def _strings(values: list[str]) -> np.ndarray:
    return np.array([v.encode() for v in values], dtype=object)


class ExportGraph:
    """The exported graph's nodes and library, the SavedObjectGraph and the signature defs."""

    def __init__(self, objects: SaveableView, user_objects: UserObjects | None = None) -> None:
        self.objects = objects
        # An object's (identifier, metadata) where the caller names it (Keras's layers).
        self.user_objects = user_objects
        self.graph = graph_pb2.GraphDef()
        self.graph.versions.CopyFrom(Graph().as_graph_def().versions)
        self.saved = saved_object_graph_pb2.SavedObjectGraph()
        self.signature_defs: dict[str, meta_graph_pb2.SignatureDef] = {}
        self.handles: dict[str, int] = {}  # a variable's handle op name -> its node id
        # A captured input's node id -> its tensor's name in the graph (a variable's handle,
        # a captured constant's Const), and the constants' dtypes.
        self.handle_names: dict[int, str] = {}
        self.constant_dtypes: dict[int, dtypes.DType] = {}
        self._constants: dict[str, int] = {}  # captured tensor name -> its node id
        self._calls = 0
        self._bodies: dict[str, Any] = {}

    def _call_name(self) -> str:
        name = "StatefulPartitionedCall" + (f"_{self._calls}" if self._calls else "")
        self._calls += 1
        return name

    def build(self) -> None:
        objects = self.objects
        for i, var in objects.variables:
            name = str(var.op.name)
            self.handles[name] = i
            self.handle_names[i] = name
            dtype = var.dtype.base_dtype
            self.graph.node.append(
                _node(name, "VarHandleOp", [], dtype=dtype, shape=var.shape, shared_name=name)
            )
            self.graph.node.append(
                _node(f"{name}/Read/ReadVariableOp", "ReadVariableOp", [name], dtype=dtype)
            )
        self.graph.node.append(_node("NoOp", "NoOp", []))
        self._object_nodes()
        self._signatures()
        self._library()
        self._saver_nodes()

    # -- the object graph --
    def _object_nodes(self) -> None:
        objects = self.objects
        for i, obj in enumerate(objects.nodes):
            node = self.saved.nodes.add()
            for name, child in objects.children[i]:
                node.children.add(node_id=child, local_name=name)
            for var_id, slot_name, slot_id in objects.slot_refs.get(i, []):
                node.slot_variables.add(
                    original_variable_node_id=var_id,
                    slot_name=slot_name,
                    slot_variable_node_id=slot_id,
                )
            if isinstance(obj, Variable):
                node.variable.dtype = obj.dtype.base_dtype.as_datatype_enum  # type: ignore[assignment]
                node.variable.shape.CopyFrom(obj.shape.as_proto())
                node.variable.trainable = bool(obj.trainable)
                node.variable.name = str(obj.op.name)
            else:
                node.user_object.identifier = (
                    _SIGNATURE_MAP
                    if isinstance(obj, SignatureMap)
                    else object_graph.identifier(obj)
                )
                named = None if self.user_objects is None else self.user_objects.identify(obj)
                if named is not None:
                    node.user_object.identifier, node.user_object.metadata = named
                node.user_object.version.producer = 1
                node.user_object.version.min_consumer = 1
        for owner, name, fn, unbound in objects.functions:
            node_id = len(self.saved.nodes)
            self.saved.nodes[owner].children.add(node_id=node_id, local_name=name)
            saved_fn = self.saved.nodes.add().function
            if fn.input_signature is not None:
                fn.get_concrete_function()
            for concrete in fn.concrete_functions_in(get_default_graph()):
                self._concrete(concrete)
                saved_fn.concrete_functions.append(concrete.name)
            python = (unbound or fn).python_function
            spec = inspect.getfullargspec(python)
            spec = spec._replace(annotations={})
            saved_fn.function_spec.fullargspec.CopyFrom(nested_structure_coder.encode(spec))
            saved_fn.function_spec.is_method = unbound is not None
            signature = None if fn.input_signature is None else tuple(fn.input_signature)
            saved_fn.function_spec.input_signature.CopyFrom(
                nested_structure_coder.encode(signature)
            )

    def _concrete(self, concrete: ConcreteFunction) -> None:
        if concrete.name in self.saved.concrete_functions:
            return
        entry = self.saved.concrete_functions[concrete.name]
        entry.bound_inputs.extend(self._bound_input(concrete, t) for t in concrete.captured_inputs)
        entry.canonicalized_input_signature.CopyFrom(
            nested_structure_coder.encode(_canonical_signature(concrete))
        )
        entry.output_signature.CopyFrom(
            nested_structure_coder.encode(_output_specs(concrete.structured_outputs))
        )
        self._bodies[concrete.name] = function_call_ops.without_exports(
            concrete._built.func, len(concrete.outputs)
        )

    def _bound_input(self, concrete: ConcreteFunction, outer: Tensor) -> int:
        """The node id of what the function captures: a saved variable's handle, or a
        constant (saved as a `constant` node naming a Const of the graph, as TF saves it)."""
        if outer.dtype == dtypes.resource:
            node = self.handles.get(outer.op.name)
            if node is not None:
                return node
        found = self._constants.get(outer.name)
        if found is not None:
            return found
        value = None if outer.dtype in (dtypes.resource, dtypes.variant) else constant_value(outer)
        if value is None:
            raise ValueError(
                f"Attempted to save a function b'{concrete.name}' which references a symbolic "
                f"Tensor {outer} that is not a simple constant. This is not supported."
            )
        node_id = len(self.saved.nodes)
        name = "Const" + (f"_{len(self._constants)}" if self._constants else "")
        dtype = outer.dtype.base_dtype
        self.graph.node.append(
            _node(name, "Const", [], dtype=dtype, value=np.asarray(value, dtype.as_numpy_dtype))
        )
        self.saved.nodes.add().constant.operation = name
        self._constants[outer.name] = node_id
        self.handle_names[node_id] = name
        self.constant_dtypes[node_id] = dtype
        return node_id

    def _capture_dtypes(self, captured: Any) -> list[dtypes.DType]:
        return [self.constant_dtypes.get(i, dtypes.resource) for i in captured]

    # -- signatures: a wrapper function per signature, called from placeholders --
    def _signatures(self) -> None:
        map_node = self.saved.nodes[self.objects.signature_node]
        for key in sorted(self.objects.signatures):
            concrete = self.objects.signatures[key]
            self._concrete(concrete)
            wrapper = self._wrapper(key, concrete)
            node_id = len(self.saved.nodes)
            map_node.children.add(node_id=node_id, local_name=key)
            bare = self.saved.nodes.add().bare_concrete_function
            bare.concrete_function_name = wrapper
            bare.argument_keywords.extend(sorted(input_names(concrete)))
            bare.allowed_positional_arguments = 1

    def _wrapper(self, key: str, concrete: ConcreteFunction) -> str:
        """A FunctionDef taking the signature's inputs by name (sorted) and the captured
        variables, calling the concrete function, returning its outputs sorted by key."""
        names = input_names(concrete)
        inputs = list(concrete.graph.inputs)
        captured = self.saved.concrete_functions[concrete.name].bound_inputs
        out_names = output_keys(concrete, key)
        order = sorted(range(len(out_names)), key=lambda k: out_names[k])
        fdef = function_pb2.FunctionDef()
        fdef.signature.name = f"__inference_signature_wrapper_{key}_{concrete.name}"
        fdef.signature.is_stateful = True
        arg_of: dict[str, str] = {}
        for n in sorted(names):
            t = inputs[names.index(n)]
            arg = fdef.signature.input_arg.add(name=_arg_name(n, len(arg_of)))
            arg.type = t.dtype.base_dtype.as_datatype_enum  # type: ignore[assignment]
            arg_of[n] = arg.name
        capture_args = []
        for k, dtype in enumerate(self._capture_dtypes(captured)):
            arg = fdef.signature.input_arg.add(name=f"capture_{k}")
            arg.type = dtype.as_datatype_enum  # type: ignore[assignment]
            capture_args.append(arg.name)
        result_dtypes = [t.dtype.base_dtype for t in concrete.outputs]
        fdef.node_def.append(
            _node(
                "StatefulPartitionedCall",
                "StatefulPartitionedCall",
                [arg_of[n] for n in names] + capture_args,
                Tin=[t.dtype.base_dtype for t in inputs] + self._capture_dtypes(captured),
                Tout=result_dtypes,
                f=attr_value_pb2.NameAttrList(name=concrete.name),
            )
        )
        signature = meta_graph_pb2.SignatureDef(method_name=sigs.PREDICT_METHOD_NAME)
        call = self._call_name()
        placeholders = []
        for n in sorted(names):
            t = inputs[names.index(n)]
            ph = f"{key}_{n}"
            placeholders.append(ph)
            self.graph.node.append(
                _node(ph, "Placeholder", [], dtype=t.dtype.base_dtype, shape=t.shape)
            )
            info = signature.inputs[n]
            info.name = f"{ph}:0"
            info.dtype = t.dtype.base_dtype.as_datatype_enum  # type: ignore[assignment]
            info.tensor_shape.CopyFrom(t.shape.as_proto())
        for j, k in enumerate(order):
            out = fdef.signature.output_arg.add(name="identity" + (f"_{j}" if j else ""))
            out.type = result_dtypes[k].as_datatype_enum  # type: ignore[assignment]
            fdef.ret[out.name] = f"StatefulPartitionedCall:output:{k}"
            info = signature.outputs[out_names[k]]
            info.name = f"{call}:{j}"
            info.dtype = result_dtypes[k].as_datatype_enum  # type: ignore[assignment]
            info.tensor_shape.CopyFrom(concrete.outputs[k].shape.as_proto())
        self.graph.node.append(
            _node(
                call,
                "StatefulPartitionedCall",
                placeholders + [self.handle_names[i] for i in captured],
                Tin=[inputs[names.index(n)].dtype.base_dtype for n in sorted(names)]
                + self._capture_dtypes(captured),
                Tout=[result_dtypes[k] for k in order],
                f=attr_value_pb2.NameAttrList(name=fdef.signature.name),
            )
        )
        self.graph.library.function.append(fdef)
        self.signature_defs[key] = signature
        entry = self.saved.concrete_functions[fdef.signature.name]
        entry.bound_inputs.extend(captured)
        specs = {
            n: TensorSpec(inputs[names.index(n)].shape, inputs[names.index(n)].dtype, name=n)
            for n in names
        }
        entry.canonicalized_input_signature.CopyFrom(nested_structure_coder.encode(((), specs)))
        outs = {
            out_names[k]: TensorSpec(
                concrete.outputs[k].shape, concrete.outputs[k].dtype, name=out_names[k]
            )
            for k in order
        }
        entry.output_signature.CopyFrom(nested_structure_coder.encode(outs))
        return fdef.signature.name

    def _library(self) -> None:
        lib = function_library.to_library_form(graph_pb2.GraphDef(), bodies=self._bodies).library
        have = {f.signature.name for f in lib.function}
        missing = set(self._bodies) - have
        if missing:
            raise ValueError(f"Functions {sorted(missing)} could not be written under their names")
        self.graph.library.function.extend(lib.function)
        self.graph.library.gradient.extend(lib.gradient)

    # -- the SaverDef's ops: SaveV2 of the variables and the object graph; RestoreV2 --
    def _saver_nodes(self) -> None:
        objects = self.objects
        keys = [objects.checkpoint_key(i) for i, _ in objects.variables]
        names = [self.handle_names[i] for i, _ in objects.variables]
        var_dtypes = [v.dtype.base_dtype for _, v in objects.variables]
        graph_bytes = np.array(objects.checkpoint_graph().SerializeToString(), dtype=object)
        g = self.graph.node
        g.append(_node("save/object_graph", "Const", [], dtype=dtypes.string, value=graph_bytes))
        g.append(_node("saver_filename", "Placeholder", [], dtype=dtypes.string))
        all_keys = [*keys, OBJECT_GRAPH_KEY]
        g.append(
            _node("save/tensor_names", "Const", [], dtype=dtypes.string, value=_strings(all_keys))
        )
        g.append(
            _node(
                "save/shape_and_slices",
                "Const",
                [],
                dtype=dtypes.string,
                value=_strings([""] * len(all_keys)),
            )
        )
        g.append(
            _node(
                "save/SaveV2",
                "SaveV2",
                [
                    "saver_filename",
                    "save/tensor_names",
                    "save/shape_and_slices",
                    *(f"{n}/Read/ReadVariableOp" for n in names),
                    "save/object_graph",
                ],
                dtypes=[*var_dtypes, dtypes.string],
            )
        )
        g.append(
            _node("save/Identity", "Identity", ["saver_filename", "^save/SaveV2"], T=dtypes.string)
        )
        restore = ["^NoOp"]
        if keys:
            g.append(
                _node(
                    "restore/tensor_names", "Const", [], dtype=dtypes.string, value=_strings(keys)
                )
            )
            g.append(
                _node(
                    "restore/shape_and_slices",
                    "Const",
                    [],
                    dtype=dtypes.string,
                    value=_strings([""] * len(keys)),
                )
            )
            g.append(
                _node(
                    "restore/RestoreV2",
                    "RestoreV2",
                    ["saver_filename", "restore/tensor_names", "restore/shape_and_slices"],
                    dtypes=var_dtypes,
                )
            )
            for k, (n, dtype) in enumerate(zip(names, var_dtypes)):
                assign = f"restore/AssignVariableOp_{k}"
                g.append(
                    _node(assign, "AssignVariableOp", [n, f"restore/RestoreV2:{k}"], dtype=dtype)
                )
                restore.append(f"^{assign}")
        g.append(_node("restore/restore_all", "NoOp", restore))


def _canonical_signature(concrete: ConcreteFunction) -> Any:
    """(positional arguments, keywords) as the function was traced, each tensor argument as
    its TensorSpec (a list argument stays a list, as TF matches calls by it); flat where the
    traced structure is unknown."""
    names = input_names(concrete)
    inputs = list(concrete.graph.inputs)
    flat = tuple(TensorSpec(t.shape, t.dtype.base_dtype, name=n) for t, n in zip(inputs, names))
    structure = concrete.structured_input_signature
    if not isinstance(structure, (list, tuple)) or len(structure) != 2:
        return (flat, {})
    args, kwargs = structure
    leaves = nest.flatten([list(args), dict(kwargs)])
    if sum(isinstance(x, (Tensor, TensorSpec)) for x in leaves) != len(flat):
        return (flat, {})
    it = iter(flat)
    fixed = [next(it) if isinstance(x, (Tensor, TensorSpec)) else x for x in leaves]
    args, kwargs = nest.pack_sequence_as([list(args), dict(kwargs)], fixed)
    return (tuple(args), dict(kwargs))


def _output_specs(structure: Any) -> Any:
    def spec(x: Any) -> Any:
        return TensorSpec(x.shape, x.dtype.base_dtype) if isinstance(x, Tensor) else x

    if isinstance(structure, Mapping):
        return {
            k: TensorSpec(v.shape, v.dtype.base_dtype, name=k) if isinstance(v, Tensor) else spec(v)
            for k, v in structure.items()
        }
    return nest.map_structure(spec, structure)


def _arg_name(name: str, index: int) -> str:
    """TF's argument names: lower case letters, digits and '_', starting with a letter."""
    clean = "".join(c if c.isalnum() or c == "_" else "_" for c in name.lower())
    return clean if clean[:1].isalpha() else f"arg_{index}_{clean}"
