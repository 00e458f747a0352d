"""Records the Python signature of every public name of TF 1.15's v1 API (tf.raw_ops aside,
whose signatures are in server/tfcluster/framework/tf115_op_defs.json) into
data/public_signatures.json: for a function its parameters, for a class its __init__'s and
those of its public methods. TF's decorators (deprecation wrappers, tf_decorator) are unwrapped
first, so the signature is the one the real function has.

Run with TF 1.15 (Python 3.7): `cd tests/tf_reference && /tmp/tf115/bin/python
record_public_signatures.py`.

A parameter is [name, kind] or [name, kind, default]; kind is "pos" (positional or keyword),
"posonly", "kwonly", "varargs" or "varkw". A default is encoded by `encode_default`.
"""

import inspect
import json
import os
import sys
import types

import tensorflow.compat.v1 as tf
from default_encoding import encode_default as _encode
from tensorflow.python.util import tf_decorator

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = os.path.join(HERE, "..", "..", "server", "tfcluster", "api", "tf115_v1_names.json")
OUT = os.path.join(HERE, "data", "public_signatures.json")
SKIPPED_MODULES = ("raw_ops",)

KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: "posonly",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "pos",
    inspect.Parameter.KEYWORD_ONLY: "kwonly",
    inspect.Parameter.VAR_POSITIONAL: "varargs",
    inspect.Parameter.VAR_KEYWORD: "varkw",
}


def encode_default(value):
    """The shared encoding (tf_reference/default_encoding.py) with this side's DType."""
    return _encode(value, tf.DType)


def unwrap(fn):
    _, target = tf_decorator.unwrap(fn)
    return target


def params_of(fn):
    """The parameters of fn after unwrapping TF's decorators, or None without a signature."""
    target = unwrap(fn)
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):
        return None
    out = []
    for p in sig.parameters.values():
        row = [p.name, KINDS[p.kind]]
        if p.default is not inspect.Parameter.empty:
            row.append(encode_default(p.default))
        out.append(row)
    return out


def public_methods(cls):
    """name -> (function, the TF class defining it) for the public methods of cls (from its
    MRO, object and builtins aside), properties excluded."""
    out = {}
    for klass in reversed(cls.__mro__):
        if klass is object or klass.__module__ == "builtins":
            continue
        for name, attr in vars(klass).items():
            if name.startswith("_"):
                continue
            if isinstance(attr, (staticmethod, classmethod)):
                fn = attr.__func__
            elif inspect.isfunction(attr) or isinstance(attr, tf_decorator.TFDecorator):
                fn = attr
            else:
                out.pop(name, None)  # a property or attribute shadows an inherited method
                continue
            out[name] = (fn, klass)
    return out


def constructor(cls):
    """What a call of cls runs with the caller's arguments: its __init__, or its __new__ where
    only that is defined (namedtuples, enums); None for object's own."""
    if cls.__init__ is not object.__init__:
        return cls.__init__
    if cls.__new__ is not object.__new__:
        return cls.__new__
    return None


def record_class(cls):
    entry = {"kind": "class"}
    init = constructor(cls)
    entry["init"] = params_of(init)[1:] if init is not None and params_of(init) else []
    methods = {}
    for name, (fn, owner) in sorted(public_methods(cls).items()):
        params = params_of(fn)
        if params is None:
            continue
        is_static = isinstance(vars(owner).get(name), staticmethod)
        if params and not is_static:
            params = params[1:]  # self / cls
        methods[name] = {
            "owner": f"{owner.__module__}.{owner.__qualname__}",
            "params": params,
        }
    entry["methods"] = methods
    return entry


def record(obj):
    target = unwrap(obj)
    if inspect.isclass(target):
        return record_class(target)
    if callable(target):
        params = params_of(target)
        if params is None:
            return {"kind": "builtin"}
        return {"kind": "function", "params": params}
    return {"kind": "value"}


def resolve(module_path):
    obj = tf
    for part in filter(None, module_path.split(".")):
        obj = getattr(obj, part)
    return obj


def main():
    with open(NAMES) as f:
        names = json.load(f)
    out = {}
    for module_path in sorted(names):
        if module_path.split(".")[0] in SKIPPED_MODULES or not names[module_path]:
            continue
        module = resolve(module_path)
        for name in sorted(names[module_path]):
            path = ".".join(p for p in ("tf", module_path, name) if p)
            value = getattr(module, name)
            if isinstance(value, types.ModuleType):
                continue
            out[path] = record(value)
    with open(OUT, "w") as f:  # one name a line, for readable diffs
        f.write('{"tensorflow": ' + json.dumps(tf.VERSION) + ',\n"signatures": {\n')
        rows = [json.dumps(k) + ": " + json.dumps(out[k], sort_keys=True) for k in sorted(out)]
        f.write(",\n".join(rows))
        f.write("\n}}\n")
    counts = {}
    for entry in out.values():
        counts[entry["kind"]] = counts.get(entry["kind"], 0) + 1
    print(f"wrote {OUT}: {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()
