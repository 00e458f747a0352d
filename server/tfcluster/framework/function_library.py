"""GraphDef function libraries <-> tfcluster's function bodies, at the file boundary.

TensorFlow keeps a function's body as a FunctionDef in `GraphDef.library`; a func attr is a
NameAttrList naming it, and a node whose op type is a library function's name calls it.
tfcluster keeps each body inside the func attr itself (a serialised GraphDef of `_Arg`,
body and `_Retval` nodes; framework/func_graph.py), so a body travels with its node to any
task. The two meet only here:

- `from_library_form` (import): every func attr naming a library function gets that
  function's body, converted (nested functions too); a node calling a function by name
  becomes a (Stateful)PartitionedCall; attrs tfcluster saved as `_tfcluster_<name>` get their
  name back.
- `to_library_form` (export): every body becomes a FunctionDef in the library and its func
  attr names it; attrs TF 1.15's op def lacks are renamed `_tfcluster_<name>` (TF's importer
  ignores attrs whose names start with "_"), so TF imports the file and tfcluster reads back
  what it wrote.
"""

from __future__ import annotations

import functools
import hashlib
import re
from typing import Any

from tfcluster.framework import errors, op_def_registry, op_signatures, tf_graph_forms
from tfcluster.framework.func_graph import (
    ARG_OPS,
    EXPORTS_ATTR,
    GRAPH_DEF_ATTR,
    OUTPUT_SHAPES_ATTR,
    RETVAL_OP,
    parse_function,
)
from tfcluster.framework.graph_io import parse_input
from tfcluster.protos import attr_value_pb2, function_pb2, graph_pb2, node_def_pb2

# tfcluster's own attrs on ops TF 1.15 also has are written under this prefix.
PRIVATE_PREFIX = "_tfcluster_"
_EXPORTS_FUNCTION_ATTR = PRIVATE_PREFIX + EXPORTS_ATTR
_INPUT_SHAPES = "_input_shapes"
# A call node's attr: the body of the gradient function the library names for the called
# function (GradientDef: Defun's grad_func); the call's gradient calls it.
GRADIENT_ATTR = "_gradient"
# An argument attr: the name of the argument's node in tfcluster's body.
_ARG_NODE_ATTR = PRIVATE_PREFIX + "node_name"
_CALL_OPS = ("PartitionedCall", "StatefulPartitionedCall")
# Deeper nesting than this is a function calling itself.
_MAX_DEPTH = 64


def _invalid(message: str) -> errors.OpError:
    return errors.InvalidArgumentError(None, None, message)


# ---- output args: TF names a node's outputs "node:arg:k" inside a FunctionDef ---------------
def _output_ranges(op_type: str, attrs: Any) -> list[tuple[str, int, int]] | None:
    """(output arg name, first flat index, count) of each output arg of a TF 1.15 op, or None
    where TF 1.15 has no such op."""
    sig = op_signatures.lookup(op_type)
    if sig is None:
        return None
    ranges = []
    start = 0
    for arg in sig.outputs:
        count = 1
        if arg.number_attr is not None:
            count = int(_attr_or_default(sig, attrs, arg.number_attr, "i"))
        elif arg.type_list_attr is not None:
            value = attrs.get(arg.type_list_attr)
            count = len(value.list.type) if value is not None else 0
        ranges.append((arg.name, start, count))
        start += count
    return ranges


def _attr_or_default(sig: op_signatures.OpSignature, attrs: Any, name: str, kind: str) -> Any:
    if name in attrs:
        return getattr(attrs[name], kind)
    attr = sig.attr(name)
    return attr.default if attr.has_default else 0


# ---- import ---------------------------------------------------------------------------------
class _Importer:
    """Converts the library's functions to bodies, each (function, instantiation) once."""

    def __init__(self, library: function_pb2.FunctionDefLibrary) -> None:
        self.functions = {f.signature.name: f for f in library.function}
        self.gradients = {g.function_name: g.gradient_func for g in library.gradient}
        self._done: dict[bytes, attr_value_pb2.NameAttrList] = {}
        self._stack: list[str] = []
        self.used: set[str] = set()  # functions some node (or used function) refers to

    # A func attr value: the named library function's body, or a body already embedded.
    def body_for(self, func: attr_value_pb2.NameAttrList, where: str) -> Any:
        if GRAPH_DEF_ATTR in func.attr:
            return self._restored(func)
        fdef = self.functions.get(func.name)
        if fdef is None:
            raise errors.NotFoundError(
                None,
                None,
                f"{where}: function '{func.name}' is not in the GraphDef's function library",
            )
        key = func.SerializeToString(deterministic=True)
        done = self._done.get(key)
        self.used.add(func.name)
        if done is None:
            done = self._convert(fdef, func.attr, where)
            self._done[key] = done
        return done

    def _restored(self, func: attr_value_pb2.NameAttrList) -> attr_value_pb2.NameAttrList:
        """An embedded body (tfcluster's own form) with its nested attrs converted too."""
        gd = graph_pb2.GraphDef.FromString(func.attr[GRAPH_DEF_ATTR].s)
        out = graph_pb2.GraphDef()
        out.versions.CopyFrom(gd.versions)
        for nd in gd.node:
            out.node.append(self.node(nd, f"function '{func.name}'"))
        copy = attr_value_pb2.NameAttrList()
        copy.CopyFrom(func)
        copy.attr[GRAPH_DEF_ATTR].s = out.SerializeToString()
        return copy

    def node(self, nd: node_def_pb2.NodeDef, where: str) -> node_def_pb2.NodeDef:
        """A node with its func attrs holding bodies; a call by function name made a call op."""
        out = node_def_pb2.NodeDef()
        out.CopyFrom(nd)
        for key in list(out.attr):
            if key.startswith(PRIVATE_PREFIX):
                out.attr[key[len(PRIVATE_PREFIX) :]].CopyFrom(out.attr[key])
                del out.attr[key]
        for key, value in out.attr.items():
            self._attr(value, f"{where} node '{nd.name}' attr '{key}'")
        called = nd.attr["f"].func.name if nd.op in _CALL_OPS and "f" in nd.attr else None
        if nd.op in self.functions and op_def_registry.lookup(nd.op) is None:
            called = nd.op
            self._as_call(out, where)
        if called in self.gradients:
            grad = attr_value_pb2.NameAttrList(name=self.gradients[called])
            where_grad = f"{where} node '{nd.name}' gradient"
            out.attr[GRADIENT_ATTR].func.CopyFrom(self.body_for(grad, where_grad))
        out.op = _alias_of(out.op)
        return out

    def _attr(self, value: attr_value_pb2.AttrValue, where: str) -> None:
        if value.HasField("func"):
            value.func.CopyFrom(self.body_for(value.func, where))
        elif value.HasField("list"):
            for f in value.list.func:
                f.CopyFrom(self.body_for(f, where))

    def _as_call(self, out: node_def_pb2.NodeDef, where: str) -> None:
        """A node whose op type is a library function's name (TF1's Defun calls)."""
        inst = attr_value_pb2.NameAttrList(name=out.op)
        for k, v in out.attr.items():
            if not k.startswith("_"):
                inst.attr[k].CopyFrom(v)
        body = self.body_for(inst, f"{where} node '{out.name}'")
        parsed = parse_function(body)
        shapes = out.attr.get(OUTPUT_SHAPES_ATTR)
        keep = {k: v for k, v in out.attr.items() if k.startswith("_") and k != OUTPUT_SHAPES_ATTR}
        out.ClearField("attr")
        for k, v in keep.items():
            out.attr[k].CopyFrom(v)
        out.op = "StatefulPartitionedCall" if _is_stateful(parsed.graph_def) else "PartitionedCall"
        out.attr["Tin"].list.type.extend(a[1].as_datatype_enum for a in parsed.args)
        out.attr["Tout"].list.type.extend(d.as_datatype_enum for d in parsed.result_dtypes)
        out.attr["f"].func.CopyFrom(body)
        for key in ("config", "config_proto", "executor_type"):
            out.attr[key].s = b""
        if shapes is not None:
            out.attr[OUTPUT_SHAPES_ATTR].CopyFrom(shapes)

    # ---- one FunctionDef -> one body ---------------------------------------------------------
    def _convert(
        self, fdef: function_pb2.FunctionDef, inst: Any, where: str
    ) -> attr_value_pb2.NameAttrList:
        name = fdef.signature.name
        if name in self._stack or len(self._stack) > _MAX_DEPTH:
            raise _invalid(f"{where}: function '{name}' calls itself")
        self._stack.append(name)
        try:
            gd = _FunctionBodyBuilder(fdef, inst, self).build()
        finally:
            self._stack.pop()
        func = attr_value_pb2.NameAttrList(name=name)
        func.attr[GRAPH_DEF_ATTR].s = gd.SerializeToString()
        if _EXPORTS_FUNCTION_ATTR in fdef.attr:
            func.attr[EXPORTS_ATTR].CopyFrom(fdef.attr[_EXPORTS_FUNCTION_ATTR])
        return func


def _is_stateful(gd: graph_pb2.GraphDef) -> bool:
    """Whether a body has stateful ops (its call is then a StatefulPartitionedCall)."""
    for nd in gd.node:
        op_def = op_def_registry.lookup(nd.op)
        if op_def is not None and op_def.stateful:
            return True
    return False


class _FunctionBodyBuilder:
    """One FunctionDef instantiated with the caller's attrs, as a tfcluster body GraphDef."""

    def __init__(self, fdef: function_pb2.FunctionDef, inst: Any, importer: _Importer) -> None:
        self.fdef = fdef
        self.inst = inst
        self.importer = importer
        self.name = fdef.signature.name
        self.where = f"function '{self.name}'"
        self.nodes = {nd.name: nd for nd in fdef.node_def}
        self.arg_names = {a.name for a in fdef.signature.input_arg}
        # An argument's node keeps the name tfcluster gave it (body tensors are named in
        # attrs such as a loop's `accumulate`); TF's arguments are named as they are.
        self.arg_nodes = {}
        for i, a in enumerate(fdef.signature.input_arg):
            saved = fdef.arg_attr[i].attr.get(_ARG_NODE_ATTR) if i in fdef.arg_attr else None
            self.arg_nodes[a.name] = saved.s.decode() if saved is not None else a.name

    def _type(self, arg: Any) -> int:
        if arg.number_attr or arg.type_list_attr:
            raise _invalid(f"{self.where}: list-valued argument '{arg.name}' is not supported")
        if arg.type_attr:
            value = self.inst.get(arg.type_attr)
            if value is None or not value.type:
                raise _invalid(
                    f"{self.where}: argument '{arg.name}' has type attr '{arg.type_attr}', "
                    "which its caller does not set"
                )
            return int(value.type)
        return int(arg.type)

    def build(self) -> graph_pb2.GraphDef:
        gd = graph_pb2.GraphDef()
        shapes = None
        if _INPUT_SHAPES in self.fdef.attr:
            shapes = list(self.fdef.attr[_INPUT_SHAPES].list.shape)
        for i, arg in enumerate(self.fdef.signature.input_arg):
            nd = gd.node.add(name=self.arg_nodes[arg.name], op="_Arg")
            nd.attr["T"].type = self._type(arg)  # type: ignore[assignment]
            nd.attr["index"].i = i
            arg_attr = self.fdef.arg_attr[i].attr if i in self.fdef.arg_attr else {}
            if shapes is not None and i < len(shapes):
                nd.attr["shape"].shape.CopyFrom(shapes[i])
            elif OUTPUT_SHAPES_ATTR in arg_attr and arg_attr[OUTPUT_SHAPES_ATTR].list.shape:
                nd.attr["shape"].shape.CopyFrom(arg_attr[OUTPUT_SHAPES_ATTR].list.shape[0])
            else:
                nd.attr["shape"].shape.unknown_rank = True
        for src in self.fdef.node_def:
            nd = self.importer.node(self._instantiated(src), self.where)
            nd.ClearField("input")
            nd.device = ""
            for ref in src.input:
                nd.input.append(self._ref(ref, src.name))
            gd.node.append(nd)
        taken = set(self.nodes) | set(self.arg_nodes.values())
        for i, out in enumerate(self.fdef.signature.output_arg):
            if out.name not in self.fdef.ret:
                raise _invalid(f"{self.where}: output '{out.name}' has no ret entry")
            rname = _unique(f"{out.name}_RetVal", taken)
            nd = gd.node.add(name=rname, op=RETVAL_OP)
            nd.input.append(self._ref(self.fdef.ret[out.name], rname))
            nd.attr["T"].type = self._type(out)  # type: ignore[assignment]
            nd.attr["index"].i = i
        _check_body_op_types(gd, self.where)
        return gd

    def _instantiated(self, src: node_def_pb2.NodeDef) -> node_def_pb2.NodeDef:
        """The node with attr placeholders ($T) replaced by the caller's values."""
        nd = node_def_pb2.NodeDef()
        nd.CopyFrom(src)
        for key, value in nd.attr.items():
            if value.WhichOneof("value") == "placeholder":
                given = self.inst.get(value.placeholder)
                if given is None:
                    raise _invalid(
                        f"{self.where} node '{src.name}': attr '{key}' refers to "
                        f"'{value.placeholder}', which the caller does not set"
                    )
                value.CopyFrom(given)
        return nd

    def _ref(self, ref: str, consumer: str) -> str:
        """A FunctionDef input ('arg', 'node:out_arg:k', '^node') as a GraphDef input."""
        if ref.startswith("^"):
            src = ref[1:]
            if src in self.arg_names:
                return "^" + self.arg_nodes[src]
            if src not in self.nodes:
                raise _invalid(f"{self.where} node '{consumer}': control input '{src}' unknown")
            return ref
        parts = ref.split(":")
        if len(parts) == 1:
            if parts[0] in self.arg_names:
                return self.arg_nodes[parts[0]]
            if parts[0] in self.nodes:  # a plain GraphDef-style reference
                return parts[0]
            raise _invalid(f"{self.where} node '{consumer}': input '{ref}' is not an argument")
        src = parts[0]
        if len(parts) == 2:  # 'node:k' (GraphDef style)
            if src not in self.nodes or not parts[1].isdigit():
                raise _invalid(f"{self.where} node '{consumer}': input '{ref}' unknown")
            return ref
        if len(parts) != 3 or not parts[2].isdigit():
            raise _invalid(f"{self.where} node '{consumer}': malformed input '{ref}'")
        node = self.nodes.get(src)
        if node is None:
            raise _invalid(f"{self.where} node '{consumer}': input '{ref}' names no node")
        out_arg, k = parts[1], int(parts[2])
        ranges = self._node_outputs(node)
        if ranges is None:  # an op TF 1.15 lacks: tfcluster wrote it with flat indices
            return f"{src}:{k}" if k else src
        for arg_name, start, count in ranges:
            if arg_name == out_arg:
                if k >= count:
                    raise _invalid(
                        f"{self.where} node '{consumer}': input '{ref}' is out of range "
                        f"({src} has {count} '{out_arg}' outputs)"
                    )
                index = start + k
                return f"{src}:{index}" if index else src
        raise _invalid(f"{self.where} node '{consumer}': {node.op} has no output '{out_arg}'")

    def _node_outputs(self, node: node_def_pb2.NodeDef) -> list[tuple[str, int, int]] | None:
        fdef = self.importer.functions.get(node.op)
        if fdef is not None and op_def_registry.lookup(node.op) is None:
            return [(a.name, i, 1) for i, a in enumerate(fdef.signature.output_arg)]
        return _output_ranges(node.op, self._instantiated(node).attr)


def _check_body_op_types(gd: graph_pb2.GraphDef, where: str) -> None:
    missing = sorted({nd.op for nd in gd.node if op_def_registry.lookup(nd.op) is None})
    if missing:
        raise errors.NotFoundError(
            None,
            None,
            f"{where}: op type not registered {', '.join(repr(m) for m in missing)} in tfcluster",
        )


def _unique(name: str, taken: set[str]) -> str:
    candidate = name
    k = 1
    while candidate in taken:
        candidate = f"{name}_{k}"
        k += 1
    taken.add(candidate)
    return candidate


def _alias_of(op_type: str) -> str:
    """TF 1.15's Experimental<X>Dataset ops are <X>Dataset under their old names (same
    inputs and attrs): one tfcluster lacks runs as the op it has."""
    if not op_type.startswith("Experimental") or op_def_registry.lookup(op_type) is not None:
        return op_type
    plain = op_type[len("Experimental") :]
    old, new = op_signatures.lookup(op_type), op_signatures.lookup(plain)
    if old is None or new is None or op_def_registry.lookup(plain) is None:
        return op_type
    if (old.inputs, old.outputs) != (new.inputs, new.outputs):
        return op_type
    if {a.name for a in old.attrs} - {a.name for a in new.attrs}:
        return op_type
    return plain


def needs_import(graph_def: graph_pb2.GraphDef) -> bool:
    """Whether the GraphDef has library functions, attrs saved under tfcluster's prefix or
    ops under their Experimental names."""
    if len(graph_def.library.function):
        return True
    for nd in graph_def.node:
        if nd.op.startswith("Experimental") and _alias_of(nd.op) != nd.op:
            return True
        if any(k.startswith(PRIVATE_PREFIX) for k in nd.attr):
            return True
    return False


def from_library_form(
    graph_def: graph_pb2.GraphDef, unused: function_pb2.FunctionDefLibrary | None = None
) -> graph_pb2.GraphDef:
    """A copy of the GraphDef in tfcluster's form: every func attr carries its body.
    `unused` (if given) receives the library's functions no node refers to (a Defun never
    called, a function only a pruned node named) and their gradients, as TF wrote them: TF
    keeps them in the graph and writes them out again."""
    importer = _Importer(graph_def.library)
    out = graph_pb2.GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    for nd in graph_def.node:
        out.node.append(importer.node(nd, "GraphDef"))
    if unused is not None:
        unused.function.extend(
            f for f in graph_def.library.function if f.signature.name not in importer.used
        )
        unused.gradient.extend(
            g for g in graph_def.library.gradient if g.function_name not in importer.used
        )
    return out


def library_bodies(
    library: function_pb2.FunctionDefLibrary, names: Any
) -> dict[str, attr_value_pb2.NameAttrList]:
    """The bodies (tfcluster's form) of the library's functions `names`, by name: what a
    SavedModel's object graph calls by name."""
    importer = _Importer(library)
    return {
        name: importer.body_for(attr_value_pb2.NameAttrList(name=name), f"function '{name}'")
        for name in names
    }


# ---- export ---------------------------------------------------------------------------------
_NAME_CHARS = re.compile(r"[^a-z0-9_]")


def _arg_name(node_name: str, taken: set[str]) -> str:
    """TF's argument names are lower case letters, digits and '_', starting with a letter."""
    name = _NAME_CHARS.sub("_", node_name.lower())
    if not name or not name[0].isalpha():
        name = "arg_" + name
    return _unique(name, taken)


class _Exporter:
    def __init__(self) -> None:
        self.library = function_pb2.FunctionDefLibrary()
        self._names: dict[bytes, str] = {}
        self._taken: set[str] = set()
        self._gradients: set[tuple[str, str]] = set()

    def node(self, nd: node_def_pb2.NodeDef) -> node_def_pb2.NodeDef:
        out = node_def_pb2.NodeDef()
        out.CopyFrom(nd)
        self.convert(out)
        return out

    def convert(self, out: node_def_pb2.NodeDef) -> None:
        """The node in TF's form, changed in place."""
        # By attr name: a map's own order changes from process to process, and the library's
        # order with it.
        for value in (out.attr[key] for key in sorted(out.attr)):
            if value.HasField("func"):
                value.func.CopyFrom(self.function_for(value.func))
            elif value.HasField("list") and len(value.list.func):
                for f in value.list.func:
                    f.CopyFrom(self.function_for(f))
        _rename_private_attrs(out)
        if GRADIENT_ATTR in out.attr and "f" in out.attr:
            pair = (out.attr["f"].func.name, out.attr[GRADIENT_ATTR].func.name)
            if pair not in self._gradients:
                self._gradients.add(pair)
                self.library.gradient.add(function_name=pair[0], gradient_func=pair[1])

    def function_for(self, func: attr_value_pb2.NameAttrList) -> attr_value_pb2.NameAttrList:
        if GRAPH_DEF_ATTR not in func.attr:
            return func
        key = func.SerializeToString(deterministic=True)
        name = self._names.get(key)
        if name is None:
            name = self._function_name(func.name, key)
            self._names[key] = name
            self.library.function.append(self._function_def(func, name))
        return attr_value_pb2.NameAttrList(name=name)

    def _function_name(self, base: str, key: bytes) -> str:
        name = base or "function"
        if op_signatures.lookup(name) is not None or op_def_registry.lookup(name) is not None:
            name = f"{name}_{hashlib.sha1(key).hexdigest()[:8]}"
        return _unique(name, self._taken)

    def _function_def(self, func: attr_value_pb2.NameAttrList, name: str) -> Any:
        body = parse_function(func, f"function '{func.name}'")
        body_nodes = tf_graph_forms.rewrite(body.graph_def.node)
        fdef = function_pb2.FunctionDef()
        fdef.signature.name = name
        nodes = {nd.name: nd for nd in body_nodes}
        taken = {nd.name.lower() for nd in body_nodes}
        arg_refs: dict[str, str] = {}
        input_shapes = fdef.attr[_INPUT_SHAPES].list
        for i, (node_name, dtype, shape, _) in enumerate(body.args):
            arg = fdef.signature.input_arg.add(name=_arg_name(node_name, taken))
            arg.type = dtype.as_datatype_enum  # type: ignore[assignment]
            arg_refs[node_name] = arg.name
            if arg.name != node_name:
                fdef.arg_attr[i].attr[_ARG_NODE_ATTR].s = node_name.encode()
            input_shapes.shape.append(shape.as_proto())

        def ref(raw: str) -> str | None:
            src, idx, is_control = parse_input(raw)
            if src in arg_refs:
                return None if is_control else arg_refs[src]
            if is_control:
                return raw
            src_node = nodes[src]
            ranges = _output_ranges(src_node.op, src_node.attr)
            if ranges is not None:
                for arg_name, start, count in ranges:
                    if start <= idx < start + count:
                        return f"{src}:{arg_name}:{idx - start}"
            return f"{src}:output:{idx}"

        for nd in body_nodes:
            if nd.op in ARG_OPS or nd.op == RETVAL_OP:
                continue
            out = self.node(nd)
            out.ClearField("input")
            out.device = ""
            out.input.extend(r for r in (ref(raw) for raw in nd.input) if r is not None)
            fdef.node_def.append(out)
        for i, (result, dtype) in enumerate(zip(body.results, body.result_dtypes)):
            out_arg = fdef.signature.output_arg.add(name=_arg_name(f"output_{i}", taken))
            out_arg.type = dtype.as_datatype_enum  # type: ignore[assignment]
            fdef.ret[out_arg.name] = ref(result) or ""
        if _is_stateful(body.graph_def):
            fdef.signature.is_stateful = True
        if body.exports:
            fdef.attr[_EXPORTS_FUNCTION_ATTR].list.s.extend(e.encode() for e in body.exports)
        return fdef


@functools.cache
def _attr_names(op_type: str) -> tuple[frozenset[str], tuple[str, ...]] | None:
    """TF 1.15's attr names of the op, and those it requires (no default); None: no such op."""
    sig = op_signatures.lookup(op_type)
    if sig is None:
        return None
    return frozenset(a.name for a in sig.attrs), tuple(
        a.name for a in sig.attrs if not a.has_default
    )


def _rename_private_attrs(nd: node_def_pb2.NodeDef) -> None:
    """Attrs TF 1.15's op def lacks move under PRIVATE_PREFIX (its importer skips them); a
    required attr TF names `T<name>` where tfcluster says `<name>` (TensorDataset's
    Toutput_types) is derived from it."""
    names = _attr_names(nd.op)
    if names is None:
        return
    declared, required = names
    for name in required:
        if name not in nd.attr and name[1:] in nd.attr:
            nd.attr[name].CopyFrom(nd.attr[name[1:]])
    for key in [k for k in nd.attr if not k.startswith("_") and k not in declared]:
        nd.attr[PRIVATE_PREFIX + key].CopyFrom(nd.attr[key])
        del nd.attr[key]


def to_library_form(
    graph_def: graph_pb2.GraphDef,
    in_place: bool = False,
    bodies: Any = None,
    kept: function_pb2.FunctionDefLibrary | None = None,
    v1_loops: bool = False,
) -> graph_pb2.GraphDef:
    """The GraphDef as TF writes it: bodies as FunctionDefs in the library. `in_place`: the
    caller's GraphDef is changed and returned (Graph.as_graph_def made it for this).
    `bodies` (name -> body) are functions the graph holds though no node calls them
    (ConcreteFunction.add_to_graph), `kept` library functions an import kept as TF wrote
    them: both go into the library too, as TF writes every function its graph has.
    `v1_loops`: the graph's own while loops as TF1's frames (tf_graph_forms.rewrite)."""
    out = graph_def
    if not in_place:
        out = graph_pb2.GraphDef()
        out.CopyFrom(graph_def)
    if tf_graph_forms.needs_rewrite(out.node):
        nodes = tf_graph_forms.rewrite(out.node, v1_loops=v1_loops)
        del out.node[:]
        out.node.extend(nodes)
    exporter = _Exporter()
    for nd in out.node:
        exporter.convert(nd)
    for body in (bodies or {}).values():
        exporter.function_for(body)
    functions = list(exporter.library.function)
    gradients = list(exporter.library.gradient)
    if kept is not None:
        have = {f.signature.name for f in functions}
        functions += [f for f in kept.function if f.signature.name not in have]
        pairs = {(g.function_name, g.gradient_func) for g in gradients}
        gradients += [g for g in kept.gradient if (g.function_name, g.gradient_func) not in pairs]
    # Only a graph with functions has a library: TF prints no empty `library {}`.
    if functions:
        out.library.function.extend(functions)
    if gradients:
        out.library.gradient.extend(gradients)
    return out


__all__ = [
    "GRADIENT_ATTR",
    "PRIVATE_PREFIX",
    "from_library_form",
    "library_bodies",
    "needs_import",
    "to_library_form",
]
