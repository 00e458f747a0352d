"""Records the public functions TensorFlow 1.15 marks deprecated, as a whole (its
`deprecation.deprecated` decorator), for some arguments (`deprecated_args`) or for some of
their values (`deprecated_arg_values`), into
server/tfcluster/api/tf115_deprecated_functions.json: {"functions": {public name: [qualified
name, TF's module, date or null, instructions]}, "arguments": {public name: [each
deprecated_args or deprecated_arg_values decorator's record (argument_deprecations_of)]}, and
the same for classes whose own __init__ carries the decorators ("classes",
"class_arguments"), and {"methods": {public class name: {attribute: [qualified name, module,
date, instructions, kind]}}} for their deprecated methods and properties
(method_deprecations_of), and {"internal_methods": {TF module: {class: {attribute: [...]}}}}
for those of classes TF's own code uses (INTERNAL_CLASSES) and the protected methods and
properties of TF's own classes that TF's code calls (the v1 `_FeatureColumn` protocol of its
feature columns, INTERNAL_MODULES); "functions_under_decorator" holds the functions whose
whole deprecation sits under another decorator (tf_should_use's, dispatch's), which TF
announces from that decorator's file instead of the program's line.

TF prints, on a program's first call of such a function, "From prog.py:3: dense (from
tensorflow.python.layers.core) is deprecated and will be removed in a future version.
Instructions for updating: ..." (once per function, whatever name it was called by), and
"calling dropout (from tensorflow.python.ops.nn_ops) with keep_prob is deprecated ..." when a
call passes a deprecated argument (once per function and argument; "calling conv1d ... with
data_format=NCHW is deprecated" for a deprecated value); a class's, when it is made
("BasicLSTMCell.__init__ (from ...) is deprecated ...").

Run with TF 1.15 itself (Python 3.7; the project never needs TensorFlow):
    /tmp/tf115/bin/python tools/record_tf115_deprecated_functions.py
"""

import importlib
import inspect
import json
import os
import sys

import tensorflow as tf  # noqa: F401  (loads the API modules)
from tensorflow.python.feature_column import sequence_feature_column  # noqa: F401
from tensorflow.python.util import decorator_utils, module_wrapper, tf_inspect

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "server",
    "tfcluster",
    "api",
    "tf115_deprecated_functions.json",
)


def _closures(value):
    """The closure variables of each function in value's chain of decorators."""
    f = value
    while f is not None:
        try:
            found = inspect.getclosurevars(f).nonlocals if inspect.isfunction(f) else {}
        except (TypeError, ValueError):
            found = {}
        yield found
        f = getattr(f, "__wrapped__", None)


def deprecation_of(value):
    """[qualified name, module, date, instructions] of value's whole-function deprecation."""
    for found in _closures(value):
        whole = "instructions" in found and "func" in found and "deprecated_arg_names" not in found
        # (deprecated_arg_values' closure has instructions and func too: not a whole one)
        if whole and "deprecated_positions" not in found and "deprecated_kwargs" not in found:
            func = found["func"]
            qualified = decorator_utils.get_qualified_name(func)
            return [qualified, func.__module__, found.get("date"), found["instructions"]]
    return None


def argument_deprecations_of(value):
    """Each `deprecated_args` decorator of value (and `deprecated_arg_values`, see
    argument_values_record): {outermost (whether it is value's outermost decorator: under
    another one, such as dispatch's or another deprecation's, TF's warning names that
    decorator's file instead of the program's line), qualified, module, date, instructions,
    args (the signature's positional names), deprecated: [[name, position or null, has an
    ok value, the ok value]], varargs, varkw (deprecated or null)}."""
    out = []
    for depth, found in enumerate(_closures(value)):
        if "deprecated_kwargs" in found and "func" in found:
            out.append(argument_values_record(found, outermost=depth == 0))
            continue
        if "deprecated_positions" not in found or "deprecated_arg_names" not in found:
            continue
        func = found["func"]
        spec = inspect.getfullargspec(func)
        deprecated = []
        for name, ok in sorted(found["deprecated_arg_names"].items()):
            position = found["deprecated_positions"].get(name)
            ok_value = ok.ok_value if ok.has_ok_value else None
            if not isinstance(ok_value, (type(None), bool, int, float, str)):
                raise SystemExit(f"an ok value JSON cannot hold: {ok_value!r}")
            deprecated.append(
                [name, None if position is None else position.position, ok.has_ok_value, ok_value]
            )
        out.append(
            {
                "outermost": depth == 0,
                "qualified": decorator_utils.get_qualified_name(func),
                "module": func.__module__,
                "date": found.get("date"),
                "instructions": found["instructions"],
                "args": list(spec.args),
                "deprecated": deprecated,
                "varargs": spec.varargs if found.get("is_varargs_deprecated") else None,
                "varkw": spec.varkw if found.get("is_kwargs_deprecated") else None,
            }
        )
    return out


def argument_values_record(found, outermost):
    """A `deprecated_arg_values` decorator's record: as a deprecated_args one with nothing
    deprecated by name, and "values": [[argument, the value that is deprecated]]."""
    func = found["func"]
    values = sorted(found["deprecated_kwargs"].items())
    for _, value in values:
        if not isinstance(value, (type(None), bool, int, float, str)):
            raise SystemExit(f"a deprecated value JSON cannot hold: {value!r}")
    return {
        "qualified": decorator_utils.get_qualified_name(func),
        "module": func.__module__,
        "date": found.get("date"),
        "instructions": found["instructions"],
        # TF matches the values by tf_inspect.getcallargs, which reads the signature of the
        # function under any inner decorators
        "args": list(tf_inspect.getfullargspec(func).args),
        "deprecated": [],
        "varargs": None,
        "varkw": None,
        "values": [list(v) for v in values],
        "outermost": outermost,
    }


def outermost_deprecation(value):
    """Whether value is itself the wrapper of TF's `deprecated` decorator (under another one,
    such as dispatch's or tf_should_use's, TF's warning names that decorator's file);
    a whole deprecation under another decorator is left out of the table."""
    outer = next(_closures(value))
    return "instructions" in outer and outer.get("func") is not None


def method_deprecations_of(cls, protected=False):
    """{attribute: [qualified name, module, date, instructions, kind]} of the methods and
    properties of cls (its own or inherited) that TF's `deprecated` decorator wraps directly;
    kind is "method", "property", "staticmethod" or "classmethod". One whose decorator sits
    under another (TensorFlowTestCase.test_session under contextmanager) is left out: TF's
    warning then names the file of that other decorator, not the program's. protected: the
    attributes starting with one underscore instead of the public ones."""
    out = {}
    for attribute in sorted(dir(cls)):
        if attribute.startswith("__") or attribute.startswith("_") != protected:
            continue
        try:
            raw = inspect.getattr_static(cls, attribute)
        except AttributeError:
            continue
        kind = "method"
        if isinstance(raw, property):
            raw, kind = raw.fget, "property"
        elif isinstance(raw, (staticmethod, classmethod)):
            raw, kind = raw.__func__, type(raw).__name__
        if raw is None or not callable(raw):
            continue
        found = deprecation_of(raw)
        if found is None:
            continue
        if outermost_deprecation(raw):
            out[attribute] = [*found, kind]
    return out


# Classes TF's own code uses that the public API does not name, whose deprecated public
# methods TF's code calls (limit_epochs calls RefVariable.count_up_to).
INTERNAL_CLASSES = (
    "tensorflow.python.ops.variables.RefVariable",
    "tensorflow.python.ops.resource_variable_ops.BaseResourceVariable",
)
# TF modules whose classes' protected methods TF's own code calls deprecated (the v1
# `_FeatureColumn` protocol of its feature columns: "EmbeddingColumn._get_dense_tensor").
INTERNAL_MODULES = (
    "tensorflow.python.feature_column.feature_column_v2",
    "tensorflow.python.feature_column.sequence_feature_column",
)


def internal_method_deprecations():
    """{module: {class: {attribute: [qualified name, module, date, instructions, kind]}}}:
    the deprecated public methods of INTERNAL_CLASSES and the deprecated protected methods and
    properties of the classes each of INTERNAL_MODULES defines."""
    out = {}
    for path in INTERNAL_CLASSES:
        module_name, _, class_name = path.rpartition(".")
        cls = getattr(importlib.import_module(module_name), class_name)
        found = method_deprecations_of(cls)
        if found:
            out.setdefault(module_name, {})[class_name] = found
    for module_name in INTERNAL_MODULES:
        module = sys.modules[module_name]
        for name, cls in sorted(vars(module).items()):
            if not inspect.isclass(cls) or cls.__module__ != module_name:
                continue
            found = method_deprecations_of(cls, protected=True)
            if found:
                out.setdefault(module_name, {})[name] = found
    return out


def main():
    table, by_arguments, classes, class_arguments, methods = {}, {}, {}, {}, {}
    under_decorator = {}
    for module in list(sys.modules.values()):
        if not isinstance(module, module_wrapper.TFModuleWrapper):
            continue
        path = module._tfmw_module_name
        if path.startswith("compat"):
            continue
        wrapped = module._tfmw_wrapped_module
        for name in sorted(dir(wrapped)):
            if name.startswith("_"):
                continue
            try:
                value = getattr(wrapped, name)
            except Exception:  # a lazily loaded module that cannot load here
                continue
            full = f"tf.{path}.{name}" if path else f"tf.{name}"
            is_class = inspect.isclass(value)
            if is_class:
                found_methods = method_deprecations_of(value)
                if found_methods:
                    methods[full] = found_methods
                # A class deprecated through its own __init__ (not one it inherits).
                value = value.__dict__.get("__init__")
            if value is None or not callable(value):
                continue
            found = deprecation_of(value)
            if found is not None and outermost_deprecation(value):
                (classes if is_class else table)[full] = found
            elif found is not None and not is_class:
                under_decorator[full] = found
            arguments = argument_deprecations_of(value)
            if arguments:
                (class_arguments if is_class else by_arguments)[full] = arguments
    out = {
        "functions": table,
        "arguments": by_arguments,
        "classes": classes,
        "class_arguments": class_arguments,
        "methods": methods,
        "internal_methods": internal_method_deprecations(),
        "functions_under_decorator": under_decorator,
    }
    with open(OUT, "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")
    print({k: len(v) for k, v in out.items()}, "->", OUT)


if __name__ == "__main__":
    main()
