"""Records the signature of every op in TensorFlow 1.15's tf.raw_ops into
server/tfcluster/framework/tf115_op_defs.json: input and output args, attrs (type, default,
allowed values, minimum), statefulness, the commutative/aggregate/uninitialized-input flags,
the keyword parameters of TF's raw op function, and whether the build registers no kernel for
the op on any device ("no_kernel": running one fails in TF's placer).

Run with TF 1.15 itself (Python 3.7; the project never needs TensorFlow):
    /tmp/tf115/bin/python tools/record_tf115_op_defs.py
"""

import ast
import inspect
import json
import os
import sys
import textwrap

import tensorflow as tf
from tensorflow.python.framework import dtypes, kernels, op_def_registry, tensor_util, versions
from tensorflow.python.util import tf_decorator

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "server",
    "tfcluster",
    "framework",
    "tf115_op_defs.json",
)


def dtype_name(enum):
    return dtypes.as_dtype(enum).name


def shape_value(shape):
    if shape.unknown_rank:
        return None
    return [d.size if d.size >= 0 else None for d in shape.dim]


def scalar_value(kind, attr):
    """An AttrValue of one kind as plain JSON."""
    if kind == "string":
        return attr.s.decode("latin-1")
    if kind == "int":
        return int(attr.i)
    if kind == "float":
        return float(attr.f)
    if kind == "bool":
        return bool(attr.b)
    if kind == "type":
        return dtype_name(attr.type)
    if kind == "shape":
        return shape_value(attr.shape)
    raise ValueError("no plain form for attr kind " + kind)


def attr_value(kind, attr):
    if kind.startswith("list("):
        item = kind[5:-1]
        lst = attr.list
        field = {
            "string": lst.s,
            "int": lst.i,
            "float": lst.f,
            "bool": lst.b,
            "type": lst.type,
            "shape": lst.shape,
        }[item]
        out = []
        for v in field:
            if item == "string":
                out.append(v.decode("latin-1"))
            elif item == "type":
                out.append(dtype_name(v))
            elif item == "shape":
                out.append(shape_value(v))
            else:
                out.append(v if item != "int" else int(v))
        return out
    if kind == "tensor":
        value = tensor_util.MakeNdarray(attr.tensor)
        return {
            "dtype": value.dtype.name,
            "shape": list(value.shape),
            "values": value.ravel().tolist(),
        }
    if kind == "func":
        return {"func": attr.func.name}
    return scalar_value(kind, attr)


def arg(a):
    out = {"name": a.name}
    if a.type_attr:
        out["type_attr"] = a.type_attr
    elif a.type_list_attr:
        out["type_list_attr"] = a.type_list_attr
    else:
        out["type"] = dtype_name(a.type)
    if a.number_attr:
        out["number_attr"] = a.number_attr
    if a.is_ref:
        out["is_ref"] = True
    return out


def attr(a):
    out = {"name": a.name, "type": a.type}
    if a.HasField("default_value"):
        out["default"] = attr_value(a.type, a.default_value)
    if a.HasField("allowed_values"):
        item = a.type[5:-1] if a.type.startswith("list(") else a.type
        out["allowed"] = attr_value(f"list({item})", a.allowed_values)
    if a.has_minimum:
        out["minimum"] = int(a.minimum)
    return out


def renames(raw_op):
    """{python parameter: OpDef arg or attr} where TF's Python API renames one (Split's axis
    is its split_dim), read from the call of _apply_op_helper in TF's generated function."""
    _, raw = tf_decorator.unwrap(raw_op)
    module = inspect.getmodule(raw)
    call = ast.parse(textwrap.dedent(inspect.getsource(raw))).body[0].body[-1].value
    generated = getattr(module, call.func.id)
    tree = ast.parse(textwrap.dedent(inspect.getsource(generated)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "_apply_op_helper":
            out = {}
            for kw in node.keywords:
                if kw.arg != "name" and isinstance(kw.value, ast.Name) and kw.value.id != kw.arg:
                    out[kw.value.id] = kw.arg
            return out
    raise ValueError("no _apply_op_helper call in " + generated.__name__)


def main():
    registry = op_def_registry.get_registered_ops()
    ops = {}
    for name in sorted(n for n in dir(tf.raw_ops) if not n.startswith("_")):
        op_def = registry[name]
        params = [p for p in inspect.signature(getattr(tf.raw_ops, name)).parameters if p != "name"]
        entry = {
            "inputs": [arg(a) for a in op_def.input_arg],
            "outputs": [arg(a) for a in op_def.output_arg],
            "attrs": [attr(a) for a in op_def.attr],
            "params": params,
        }
        renamed = renames(getattr(tf.raw_ops, name))
        if renamed:
            entry["renames"] = renamed
        if op_def.deprecation.version:
            entry["deprecation"] = {
                "version": op_def.deprecation.version,
                "explanation": op_def.deprecation.explanation,
            }
        if op_def.is_stateful:
            entry["stateful"] = True
        # Flags a MetaGraph's stripped_op_list carries with the op.
        if op_def.is_commutative:
            entry["commutative"] = True
        if op_def.is_aggregate:
            entry["aggregate"] = True
        if op_def.allows_uninitialized_input:
            entry["allows_uninitialized_input"] = True
        if not kernels.get_registered_kernels_for_op(name).kernel:
            entry["no_kernel"] = True
        ops[name] = entry
    doc = {"tensorflow": tf.__version__, "ops": ops}
    # One op a line: compact, and a change to one op is a one-line diff.
    head = json.dumps(doc["tensorflow"]), versions.GRAPH_DEF_VERSION
    lines = ['{{"tensorflow":{},"graph_def_version":{},"ops":{{'.format(*head)]
    items = sorted(ops.items())
    for i, (name, entry) in enumerate(items):
        sep = "," if i < len(items) - 1 else ""
        lines.append(
            "{}:{}{}".format(
                json.dumps(name), json.dumps(entry, separators=(",", ":"), sort_keys=True), sep
            )
        )
    lines.append("}}")
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {len(ops)} ops to {os.path.normpath(OUT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
