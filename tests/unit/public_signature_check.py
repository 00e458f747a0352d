"""Compares tfcluster's public callables with TF 1.15's recorded signatures
(tests/tf_reference/data/public_signatures.json, written by record_public_signatures.py).

A callable matches when it takes TF's parameters by the same names, in the same positional
order, of the same kinds, with equal defaults; it may add parameters only where TF takes
**kwargs (a call TF accepts then still binds), and then only keyword-only ones.

    PYTHONPATH=server python tests/unit/public_signature_check.py   # lists every mismatch
"""

from __future__ import annotations

import enum
import inspect
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import tfcluster as tf
from tf_reference.default_encoding import encode_default as _encode
from tfcluster.api import _unimplemented

DATA = Path(__file__).resolve().parents[1] / "tf_reference" / "data" / "public_signatures.json"

KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: "posonly",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "pos",
    inspect.Parameter.KEYWORD_ONLY: "kwonly",
    inspect.Parameter.VAR_POSITIONAL: "varargs",
    inspect.Parameter.VAR_KEYWORD: "varkw",
}
Param = list[Any]  # [name, kind] or [name, kind, encoded default]


def load() -> dict[str, Any]:
    with DATA.open() as f:
        signatures: dict[str, Any] = json.load(f)["signatures"]
    return signatures


def encode_default(value: Any) -> dict[str, Any]:
    """The shared encoding (tf_reference/default_encoding.py) with this side's DType."""
    return _encode(value, tf.DType)


def params_of(fn: Any, drop_first: bool = False) -> list[Param] | None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    out: list[Param] = []
    for p in sig.parameters.values():
        row: Param = [p.name, KINDS[p.kind]]
        if p.default is not inspect.Parameter.empty:
            row.append(encode_default(p.default))
        out.append(row)
    return out[1:] if drop_first and out else out


def constructor(cls: type) -> Any:
    """What a call of cls runs with the caller's arguments: its __init__, or its __new__ where
    only that is defined (namedtuples, enums); None for object's own."""
    if issubclass(cls, enum.Enum):
        return enum.Enum.__new__  # Python 3.11's Enum.__init__(*args, **kwds) is not called so
    if cls.__init__ is not object.__init__:
        return cls.__init__
    if cls.__new__ is not object.__new__:
        return cls.__new__
    return None


def method_params(cls: type, name: str) -> list[Param] | str | None:
    """tfcluster's parameters of cls.name without self/cls; a string says why there are none."""
    try:
        raw = inspect.getattr_static(cls, name)
    except AttributeError:
        return "no such method in tfcluster"
    if isinstance(raw, staticmethod):
        return params_of(raw.__func__)
    if isinstance(raw, classmethod):
        return params_of(raw.__func__, drop_first=True)
    if isinstance(raw, property):
        return "a property, not a method"
    if callable(raw):
        return params_of(raw, drop_first=True)
    return f"a {type(raw).__name__}, not a method"


def _show(p: Param) -> str:
    text = {"pos": "", "posonly": "", "kwonly": "*", "varargs": "*", "varkw": "**"}[p[1]] + p[0]
    if p[1] == "kwonly":
        text = p[0] + "(kw)"
    if len(p) > 2:
        text += "=" + json.dumps(p[2], sort_keys=True)
    return text


def _plain(encoded: Any) -> Any:
    """A default's encoding with list and tuple alike: callers cannot tell them apart."""
    if isinstance(encoded, dict) and "seq" in encoded:
        return [_plain(item) for item in encoded["items"]]
    return encoded


def _same_default(tf_default: list[Any], ours: list[Any]) -> bool:
    if tf_default and ours and tf_default[0] == {"type": "object"}:
        return True  # TF's private "not given" sentinel: any default of ours stands for it
    return [_plain(d) for d in tf_default] == [_plain(d) for d in ours]


def compare(tf_params: list[Param], ours: list[Param]) -> str | None:
    """None when ours matches TF's; else what differs."""
    problems = []
    tf_by_name = {p[0]: p for p in tf_params}
    ours_by_name = {p[0]: p for p in ours}
    tf_pos = [p[0] for p in tf_params if p[1] in ("pos", "posonly")]
    our_pos = [p[0] for p in ours if p[1] in ("pos", "posonly")]
    if tf_pos != our_pos[: len(tf_pos)]:
        problems.append(f"positional order {our_pos} != TF's {tf_pos}")
    tf_varkw = any(p[1] == "varkw" for p in tf_params)
    for p in tf_params:
        if p[1] in ("varargs", "varkw"):
            if not any(q[1] == p[1] for q in ours):
                problems.append(f"lacks {_show(p)}")
            continue
        q = ours_by_name.get(p[0])
        if q is None:
            problems.append(f"lacks {_show(p)}")
            continue
        kinds = {p[1], q[1]}
        if p[1] != q[1] and kinds != {"pos", "posonly"}:
            problems.append(f"{p[0]} is {q[1]}, TF's is {p[1]}")
        if not _same_default(p[2:], q[2:]):
            problems.append(f"{_show(q)} != TF's {_show(p)}")
    for q in ours:
        if q[0] in tf_by_name:
            continue
        if q[1] == "varkw" or q[1] == "varargs":
            if not any(p[1] == q[1] for p in tf_params):
                problems.append(f"extra {_show(q)}")
            continue
        # A keyword-only extra with a default binds no call TF accepts differently: tfcluster's
        # own options (a Server's metrics port, ...) are added that way.
        if not (q[1] == "kwonly" and (len(q) > 2 or tf_varkw)):
            problems.append(f"extra {_show(q)}")
    return "; ".join(problems) or None


def resolve(path: str) -> Any:
    obj: Any = tf
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def checks() -> Iterator[tuple[str, list[Param], Any, str]]:
    """(key, TF's parameters, tfcluster's object, member) for every implemented name:
    functions, class constructors ("tf.X.__init__") and public methods ("tf.X.method", each TF
    method once, at the first implemented class path reaching it)."""
    seen_methods: set[tuple[str, str]] = set()
    for path, entry in sorted(load().items()):
        if entry["kind"] not in ("function", "class"):
            continue
        ours = resolve(path)
        if _unimplemented.is_unimplemented(ours):
            continue
        if entry["kind"] == "function":
            yield path, entry["params"], ours, ""
            continue
        if entry["init"] is not None:
            yield f"{path}.__init__", entry["init"], ours, "__init__"
        for name, method in sorted(entry["methods"].items()):
            key = (method["owner"], name)
            if key in seen_methods:
                continue
            seen_methods.add(key)
            yield f"{path}.{name}", method["params"], ours, name


def ours_params(ours: Any, member: str) -> list[Param] | str | None:
    """tfcluster's parameters of a function ("" member), a class's __init__ or a method. A
    function of TF's that tfcluster makes a class is called the same way: its __init__."""
    if inspect.isclass(ours):
        if not member or member == "__init__":
            init = constructor(ours)
            return [] if init is None else params_of(init, drop_first=True)
        return method_params(ours, member)
    if member == "__init__" and callable(ours):
        return params_of(ours)  # TF's class made by a function: called the same way
    if member:
        return f"a {type(ours).__name__}, not a class"
    if not callable(ours):
        return f"a {type(ours).__name__}, not callable"
    return params_of(ours)


def mismatch(tf_params: list[Param], ours: Any, member: str) -> str | None:
    """None when tfcluster matches TF; else what differs."""
    got = ours_params(ours, member)
    if got is None:
        return "tfcluster's signature cannot be read"
    if isinstance(got, str):
        return got
    return compare(tf_params, got)


def all_mismatches() -> dict[str, str]:
    out = {}
    for key, tf_params, ours, member in checks():
        problem = mismatch(tf_params, ours, member)
        if problem is not None:
            out[key] = problem
    return out


KNOWN_FILE = Path(__file__).with_name("public_signature_known.py")

_INTERNAL = "an internal constructor: programs get these objects from TF's API and never build them"
_FORWARDING = (
    "TF 1.15 records its wrapper's (*args, **kwargs), forwarded to the real constructor; "
    "tfcluster names that constructor's parameters"
)
# Why a difference stays (the others are not fixed yet).
REASONS = {
    "tf.DType.__init__": _INTERNAL,
    "tf.dtypes.DType.__init__": _INTERNAL,
    "tf.Operation.__init__": _INTERNAL,
    "tf.Tensor.__init__": _INTERNAL,
    "tf.data.Dataset.__init__": _INTERNAL + " (tf.data.Dataset is abstract)",
    "tf.data.experimental.Optional.__init__": _INTERNAL,
    "tf.distribute.StrategyExtended.__init__": _INTERNAL,
    "tf.distribute.ReplicaContext.__init__": _INTERNAL,
    "tf.OpError.__init__": (
        "error_code defaults to the class's code: tfcluster raises OpError subclasses as "
        "(node_def, op, message), which its type hints see as OpError"
    ),
    "tf.errors.OpError.__init__": "as tf.OpError.__init__",
    "tf.test.TestCase.addCleanup": (
        "Python 3.11's unittest (function, /, *args, **kwargs); TF 1.15 recorded Python 3.7's"
    ),
    "tf.nn.rnn_cell.DropoutWrapper.__init__": _FORWARDING,
    "tf.nn.rnn_cell.DeviceWrapper.__init__": _FORWARDING,
    "tf.nn.rnn_cell.ResidualWrapper.__init__": _FORWARDING,
    "tf.group": (
        "TF takes **kwargs only to read name= and raises TypeError for any other keyword; "
        "tfcluster's keyword-only name accepts and refuses the same calls"
    ),
    "tf.Graph.create_op": (
        "not fixed: tfcluster's ops build through Graph.create_op(op_type, inputs, attrs, name) "
        "at some 40 call sites; TF's (dtypes, input_types, name, attrs, ...) order needs a "
        "separate public face"
    ),
    "tf.keras.layers.GRU.from_config": (
        "keeps RNN.from_config's custom_objects (TF's RNN.from_config has it too)"
    ),
    "tf.keras.layers.LSTM.from_config": "as tf.keras.layers.GRU.from_config",
    "tf.keras.layers.SimpleRNN.from_config": "as tf.keras.layers.GRU.from_config",
}


def write_known(found: dict[str, str]) -> None:
    """Rewrites public_signature_known.py from the differences found now."""
    lines = [
        '"""Public names whose signature still differs from TF 1.15\'s: why, then what differs',
        "(written by `python tests/unit/public_signature_check.py --write-known`; only remove",
        'entries: test_public_signatures.py fails for an entry that matches)."""',
        "",
        "# ruff: noqa: E501",
        "",
        "KNOWN_DIFFERENCES: dict[str, str] = {",
    ]
    for key, problem in sorted(found.items()):
        reason = REASONS.get(key, "not fixed yet")
        lines.append(f"    {key!r}: {reason + ': ' + problem!r},")
    lines.append("}")
    KNOWN_FILE.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    import sys

    found = all_mismatches()
    for key, problem in sorted(found.items()):
        print(f"{key}: {problem}")
    print(len(found), "mismatches of", sum(1 for _ in checks()), "checks")
    if "--write-known" in sys.argv:
        write_known(found)
