"""Records the public functions TensorFlow 1.15 marks deprecated as a whole (its
`deprecation.deprecated` decorator) into server/tfcluster/api/tf115_deprecated_functions.json:
{public name: [qualified name, TF's module, date or null, instructions]}.

TF prints, on a program's first call of such a function, "From prog.py:3: dense (from
tensorflow.python.layers.core) is deprecated and will be removed in a future version.
Instructions for updating: ..." (once per function, whatever name it was called by). Classes
and functions deprecated only for some arguments are not recorded.

Run with TF 1.15 itself (Python 3.7; the project never needs TensorFlow):
    /tmp/tf115/bin/python tools/record_tf115_deprecated_functions.py
"""

import inspect
import json
import os
import sys

import tensorflow as tf  # noqa: F401  (loads the API modules)
from tensorflow.python.util import decorator_utils, module_wrapper

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "server",
    "tfcluster",
    "api",
    "tf115_deprecated_functions.json",
)


def deprecation_of(value):
    """[qualified name, module, date, instructions] of value's whole-function deprecation."""
    f = value
    while f is not None:
        try:
            found = inspect.getclosurevars(f).nonlocals if inspect.isfunction(f) else {}
        except (TypeError, ValueError):
            found = {}
        whole = "instructions" in found and "func" in found and "deprecated_arg_names" not in found
        if whole and "deprecated_positions" not in found:
            func = found["func"]
            qualified = decorator_utils.get_qualified_name(func)
            return [qualified, func.__module__, found.get("date"), found["instructions"]]
        f = getattr(f, "__wrapped__", None)
    return None


def main():
    table = {}
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
            if inspect.isclass(value) or not callable(value):
                continue
            found = deprecation_of(value)
            if found is not None:
                table[f"tf.{path}.{name}" if path else f"tf.{name}"] = found
    with open(OUT, "w") as f:
        json.dump(table, f, indent=0, sort_keys=True)
        f.write("\n")
    print(len(table), "functions ->", OUT)


if __name__ == "__main__":
    main()
