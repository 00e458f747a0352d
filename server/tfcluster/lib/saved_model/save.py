"""tf.saved_model.save (TF 1.15, graph mode): a trackable object, its variables and its
tf.functions written as TF 2's object-based SavedModel.

The files are TF's: saved_model.pb holds one MetaGraphDef (tag `serve`) whose graph has a
resource variable (VarHandleOp) per saved variable, each traced function as a FunctionDef
taking those variables' handles, a call of each signature's wrapper function fed by
`<signature>_<argument>` placeholders, a SaverDef's save and restore ops, and the
SavedObjectGraph that tf.saved_model.load_v2 rebuilds the objects from; variables/ is an
object-based checkpoint of the variables' values (read in the default session, as TF reads
them) with its TrackableObjectGraph. TF 1.15's loader.load and load_v2 both read it.

Saved: variables, tf.train.Checkpoint / tf.Module objects and Keras models (their weighted
layers) and the concrete functions of their tf.function attributes; a function may capture
the saved resource variables only (TF also saves captured constants and assets)."""

from __future__ import annotations

import inspect
import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from tfcluster.framework import dtypes
from tfcluster.framework.default_session import get_default_session
from tfcluster.framework.graph import Graph, Tensor
from tfcluster.framework.tensor_bundle import bundle
from tfcluster.framework.tensor_util import make_tensor_proto
from tfcluster.framework.type_spec import TensorSpec
from tfcluster.lib import nest
from tfcluster.lib.function.def_function import ConcreteFunction, Function
from tfcluster.lib.saved_model import constants, nested_structure_coder, object_graph
from tfcluster.lib.saved_model import signature_constants as sigs
from tfcluster.ops import function_call_ops
from tfcluster.ops.variables import Variable
from tfcluster.protos import (
    attr_value_pb2,
    function_pb2,
    graph_pb2,
    meta_graph_pb2,
    node_def_pb2,
    saved_model_pb2,
    saved_object_graph_pb2,
    saver_pb2,
)
from tfcluster.protos.trackable_object_graph_pb2 import TrackableObjectGraph
from tfcluster.training.object_checkpoint import Checkpoint

TF_VERSION = "1.15.0"
_VARIABLE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
_OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_SIGNATURE_MAP = "signature_map"
_DEFAULT_SIGNATURE_ATTR = "_default_save_signature"


# ---- signatures ------------------------------------------------------------------------------
def _concrete(fn: Any) -> ConcreteFunction | None:
    if isinstance(fn, ConcreteFunction):
        return fn
    if isinstance(fn, Function) and fn.input_signature is not None:
        return fn.get_concrete_function()
    return None


def _keras_default_signature(model: Any) -> ConcreteFunction:
    """TF's Keras `_default_save_signature`: the model called on its inputs' specs, its
    outputs keyed by the output layers' names."""
    specs = [
        TensorSpec(t.shape, t.dtype.base_dtype, name=n)
        for t, n in zip(model.inputs, model.input_names)
    ]

    def call(inputs: Any) -> dict[str, Any]:
        outputs = model(inputs)
        flat = outputs if isinstance(outputs, (list, tuple)) else [outputs]
        return dict(zip(model.output_names, flat))

    spec: Any = specs[0] if len(specs) == 1 else specs
    fn = Function(call, name=_DEFAULT_SIGNATURE_ATTR, input_signature=[spec], autograph=False)
    return fn.get_concrete_function()


def _find_signature(root: Any) -> ConcreteFunction | None:
    """TF's choice without `signatures=`: a Keras model's default signature, else the root's
    one tf.function with an input signature (none where there are several)."""
    if object_graph.is_keras_model(root):
        if not root.inputs:
            return None
        return _keras_default_signature(root)
    found = [c for _, fn, _ in object_graph.functions(root) if (c := _concrete(fn)) is not None]
    return found[0] if len(found) == 1 else None


def _canonical_signatures(signatures: Any) -> dict[str, ConcreteFunction]:
    if not isinstance(signatures, Mapping):
        signatures = {sigs.DEFAULT_SERVING_SIGNATURE_DEF_KEY: signatures}
    out = {}
    for key, fn in signatures.items():
        if not isinstance(key, str):
            raise ValueError(f"Expected a string signature key, got {key!r}.")
        concrete = _concrete(fn)
        if concrete is None:
            raise ValueError(
                f"Expected a TensorFlow function to generate a signature for, but got {fn}. "
                "Only `tf.functions` with an input signature or concrete functions can be used "
                "as a signature."
            )
        out[key] = concrete
    return out


def _output_names(concrete: ConcreteFunction, key: str) -> list[str]:
    """The signature's output keys, in the order of the function's flat outputs: a dict's
    keys (one Tensor each), else output_<i> for a Tensor or a flat list of them (TF's
    checks and messages)."""
    structure = concrete.structured_outputs
    if isinstance(structure, Mapping):
        for name, value in structure.items():
            if not isinstance(name, str):
                raise ValueError(
                    f"Got a dictionary with a non-string key {name!r} in the output of the "
                    f"function {concrete.name} used to generate a SavedModel signature."
                )
            if not isinstance(value, Tensor):
                raise ValueError(
                    f"Got a dictionary containing non-Tensor value {value} for key {name} in "
                    f"the output of the function {concrete.name} used to generate a "
                    "SavedModel signature. Dictionaries outputs for functions used as "
                    "signatures should have one Tensor output per string key."
                )
        return sorted(structure)
    flat = list(structure) if isinstance(structure, (list, tuple)) else [structure]
    if not all(isinstance(t, Tensor) for t in flat):
        raise ValueError(
            f"Got non-flat outputs '{structure}' from '{concrete.name}' for SavedModel "
            f"signature '{key}'. Signatures have one Tensor per output, so to have "
            "predictable names Python functions used to generate these signatures should "
            "avoid outputting Tensors in nested structures."
        )
    return [f"output_{i}" for i in range(len(flat))]


def _input_names(concrete: ConcreteFunction) -> list[str]:
    """Each flat input's name: its TensorSpec's name, else its argument's (as TF names the
    function's placeholders)."""
    specs: list[TensorSpec | None] = [
        s for s in nest.flatten(concrete.structured_input_signature) if isinstance(s, TensorSpec)
    ]
    if len(specs) != len(concrete.graph.inputs):
        specs = [None] * len(concrete.graph.inputs)
    return [
        (s.name if s is not None and s.name else str(t.op.name))
        for s, t in zip(specs, concrete.graph.inputs)
    ]


# ---- the objects, their variables and functions ----------------------------------------------
class _Objects:
    """Trackables breadth first from the root (the signature map last among the root's
    children), then function nodes: TF's node ids of both object graphs."""

    def __init__(self, root: Any, signatures: dict[str, ConcreteFunction]) -> None:
        self.nodes: list[Any] = [root]
        self.children: list[list[tuple[str, int]]] = [[]]
        self.paths: list[tuple[str, ...]] = [()]
        ids = {id(root): 0}
        queue = [0]
        while queue:
            i = queue.pop(0)
            kids = object_graph.children(self.nodes[i])
            if i == 0:
                kids = [*kids, ("signatures", _SIGNATURE_MAP)]
            for name, obj in kids:
                if id(obj) not in ids:
                    ids[id(obj)] = len(self.nodes)
                    self.nodes.append(obj)
                    self.children.append([])
                    self.paths.append((*self.paths[i], name))
                    if obj is not _SIGNATURE_MAP:
                        queue.append(ids[id(obj)])
                self.children[i].append((name, ids[id(obj)]))
        self.num_trackables = len(self.nodes)
        self.signature_node = ids[id(_SIGNATURE_MAP)]
        # (node id, attribute name, tf.function, unbound form)
        self.functions: list[tuple[int, str, Function, Any]] = []
        for i in range(self.num_trackables):
            if self.nodes[i] is _SIGNATURE_MAP:
                continue
            for name, fn, unbound in object_graph.functions(self.nodes[i]):
                self.functions.append((i, name, fn, unbound))
        self.variables = [(i, obj) for i, obj in enumerate(self.nodes) if isinstance(obj, Variable)]
        self.signatures = signatures

    def checkpoint_key(self, i: int) -> str:
        return "/".join(p.replace(".", "..").replace("/", ".S") for p in self.paths[i]) + (
            _VARIABLE_SUFFIX
        )

    def checkpoint_graph(self) -> TrackableObjectGraph:
        graph = TrackableObjectGraph()
        for i, obj in enumerate(self.nodes):
            node = graph.nodes.add()
            for name, child in self.children[i]:
                node.children.add(node_id=child, local_name=name)
            if isinstance(obj, Variable):
                node.attributes.add(
                    name="VARIABLE_VALUE",
                    full_name=obj.op.name,
                    checkpoint_key=self.checkpoint_key(i),
                )
        return graph


def _bound_inputs(concrete: ConcreteFunction, handles: dict[str, int]) -> list[int]:
    out = []
    for outer in concrete.captured_inputs:
        node = handles.get(outer.op.name) if outer.dtype == dtypes.resource else None
        if node is None:
            raise ValueError(
                f"Attempted to save a function b'{concrete.name}' which references a symbolic "
                f"Tensor {outer} that is not a simple constant. This is not supported."
            )
        out.append(node)
    return out


# ---- proto building --------------------------------------------------------------------------
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


class _Export:
    """The exported graph's nodes and library, the SavedObjectGraph and the signature defs."""

    def __init__(self, objects: _Objects) -> None:
        self.objects = objects
        self.graph = graph_pb2.GraphDef()
        self.graph.versions.CopyFrom(Graph().as_graph_def().versions)
        self.saved = saved_object_graph_pb2.SavedObjectGraph()
        self.signature_defs: dict[str, meta_graph_pb2.SignatureDef] = {}
        self.handles: dict[str, int] = {}  # a variable's handle op name -> its node id
        self.handle_names: dict[int, str] = {}
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
            if isinstance(obj, Variable):
                node.variable.dtype = obj.dtype.base_dtype.as_datatype_enum  # type: ignore[assignment]
                node.variable.shape.CopyFrom(obj.shape.as_proto())
                node.variable.trainable = bool(obj.trainable)
                node.variable.name = str(obj.op.name)
            else:
                node.user_object.identifier = (
                    _SIGNATURE_MAP if obj is _SIGNATURE_MAP else object_graph.identifier(obj)
                )
                node.user_object.version.producer = 1
                node.user_object.version.min_consumer = 1
        for owner, name, fn, unbound in objects.functions:
            node_id = len(self.saved.nodes)
            self.saved.nodes[owner].children.add(node_id=node_id, local_name=name)
            saved_fn = self.saved.nodes.add().function
            if fn.input_signature is not None:
                fn.get_concrete_function()
            for concrete in _traced(fn):
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
        entry.bound_inputs.extend(_bound_inputs(concrete, self.handles))
        names = _input_names(concrete)
        specs = tuple(
            TensorSpec(t.shape, t.dtype.base_dtype, name=n)
            for t, n in zip(concrete.graph.inputs, names)
        )
        entry.canonicalized_input_signature.CopyFrom(nested_structure_coder.encode((specs, {})))
        entry.output_signature.CopyFrom(
            nested_structure_coder.encode(_output_specs(concrete.structured_outputs))
        )
        self._bodies[concrete.name] = function_call_ops.without_exports(
            concrete._built.func, len(concrete.outputs)
        )

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
            bare.argument_keywords.extend(sorted(_input_names(concrete)))
            bare.allowed_positional_arguments = 1

    def _wrapper(self, key: str, concrete: ConcreteFunction) -> str:
        """A FunctionDef taking the signature's inputs by name (sorted) and the captured
        variables, calling the concrete function, returning its outputs sorted by key."""
        names = _input_names(concrete)
        inputs = list(concrete.graph.inputs)
        captured = self.saved.concrete_functions[concrete.name].bound_inputs
        out_names = _output_names(concrete, key)
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
        for k, _ in enumerate(captured):
            arg = fdef.signature.input_arg.add(name=f"capture_{k}")
            arg.type = dtypes.resource.as_datatype_enum  # type: ignore[assignment]
            capture_args.append(arg.name)
        result_dtypes = [t.dtype.base_dtype for t in concrete.outputs]
        fdef.node_def.append(
            _node(
                "StatefulPartitionedCall",
                "StatefulPartitionedCall",
                [arg_of[n] for n in names] + capture_args,
                Tin=[t.dtype.base_dtype for t in inputs] + [dtypes.resource] * len(captured),
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
                + [dtypes.resource] * len(captured),
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
        from tfcluster.framework import function_library

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
        g.append(_node("Const", "Const", [], dtype=dtypes.string, value=graph_bytes))
        g.append(_node("saver_filename", "Placeholder", [], dtype=dtypes.string))
        all_keys = [*keys, _OBJECT_GRAPH_KEY]
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
                    "Const",
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


def _traced(fn: Function) -> list[ConcreteFunction]:
    """The function's traces in the graph being saved, in trace order."""
    from tfcluster.framework.graph import get_default_graph

    graph = get_default_graph()
    return [c for c in fn._cache.values() if c.graph.outer_graph is graph]


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


def _session() -> Any:
    session = get_default_session()
    if session is None:
        from tfcluster.lib.keras import backend

        session = backend.get_session()
    return session


def save(obj: Any, export_dir: str, signatures: Any = None) -> None:
    """Writes obj to export_dir as the SavedModel the module docstring describes."""
    if not object_graph.is_trackable(obj):
        raise ValueError(f"Expected a Trackable object for export, got {obj}.")
    if signatures is None:
        found = _find_signature(obj)
        signature_map = {} if found is None else {sigs.DEFAULT_SERVING_SIGNATURE_DEF_KEY: found}
    else:
        signature_map = _canonical_signatures(signatures)
    if isinstance(obj, Checkpoint):
        obj._maybe_create_save_counter()  # TF saves it (uninitialized: FailedPreconditionError)
    objects = _Objects(obj, signature_map)
    export = _Export(objects)
    export.build()
    for _, var in objects.variables:
        if not getattr(var, "_is_resource_variable", False):
            # TF 1.15 saves through resource handles only: its saver refuses a ref variable.
            raise ValueError(
                f"{var._ref()} must be from the same graph as "
                'Tensor("saver_filename:0", shape=(), dtype=string).'
            )
    session = _session()
    # A variable fetched is its value (no op added: the graph may be finalized).
    values = session.run([v for _, v in objects.variables]) if objects.variables else []

    meta = meta_graph_pb2.MetaGraphDef()
    meta.meta_info_def.tags.append("serve")
    meta.meta_info_def.tensorflow_version = TF_VERSION
    meta.meta_info_def.tensorflow_git_version = "tfcluster"
    meta.graph_def.CopyFrom(export.graph)
    meta.saver_def.CopyFrom(
        saver_pb2.SaverDef(
            filename_tensor_name="saver_filename:0",
            save_tensor_name="save/Identity:0",
            restore_op_name="restore/restore_all",
            version=saver_pb2.SaverDef.V2,
        )
    )
    for key, signature in export.signature_defs.items():
        meta.signature_def[key].CopyFrom(signature)
    init = meta.signature_def[constants.INIT_OP_SIGNATURE_KEY]
    init.outputs[constants.INIT_OP_SIGNATURE_KEY].name = "NoOp"
    meta.collection_def[constants.MAIN_OP_KEY].node_list.value.append("NoOp")
    meta.object_graph_def.CopyFrom(export.saved)
    saved_model = saved_model_pb2.SavedModel(saved_model_schema_version=1)
    saved_model.meta_graphs.append(meta)

    export_dir = os.fspath(export_dir)
    variables_dir = os.path.join(export_dir, constants.VARIABLES_DIRECTORY)
    os.makedirs(variables_dir, exist_ok=True)
    os.makedirs(os.path.join(export_dir, constants.ASSETS_DIRECTORY), exist_ok=True)
    tensors = [
        bundle.TensorToSave(objects.checkpoint_key(i), np.asarray(value))
        for (i, _), value in zip(objects.variables, values)
    ]
    graph_value = np.empty((), dtype=object)
    graph_value[()] = objects.checkpoint_graph().SerializeToString()
    tensors.append(bundle.TensorToSave(_OBJECT_GRAPH_KEY, graph_value))
    bundle.write_bundle(os.path.join(variables_dir, constants.VARIABLES_FILENAME), [tensors])
    with open(os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB), "wb") as f:
        f.write(saved_model.SerializeToString(deterministic=True))
