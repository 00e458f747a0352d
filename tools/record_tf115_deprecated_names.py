"""Records the names whose use TensorFlow 1.15 announces as deprecated, module by module, into
server/tfcluster/api/tf115_deprecated_names.json: {module path: {name: the name to use}}.

TF 1.15's v1 API modules (not those under tf.compat) warn, once per name, when a program
reads a name that TF 2 renames: "The name tf.X is deprecated. Please use tf.Y instead."
(tensorflow/python/util/module_wrapper.py, with tf_upgrade_v2's rename table); names whose
object carries its own deprecation decorator are left to it.

Run with TF 1.15 itself (Python 3.7; the project never needs TensorFlow):
    /tmp/tf115/bin/python tools/record_tf115_deprecated_names.py
"""

import json
import os
import sys

import tensorflow as tf  # noqa: F401  (loads the API modules)
from tensorflow.python.util import module_wrapper
from tensorflow.tools.compatibility import all_renames_v2

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "server",
    "tfcluster",
    "api",
    "tf115_deprecated_names.json",
)


def warning_modules():
    """module path -> the wrapped modules that print deprecations for it."""
    found = {}
    for module in list(sys.modules.values()):
        wraps = isinstance(module, module_wrapper.TFModuleWrapper)
        if wraps and module._tfmw_print_deprecation_warnings:
            found.setdefault(module._tfmw_module_name, []).append(module)
    return found


def main():
    table = {}
    for path, modules in sorted(warning_modules().items()):
        for module in modules:
            wrapped = module._tfmw_wrapped_module
            for name in sorted(dir(wrapped)):
                if name.startswith("_"):
                    continue
                full = f"tf.{path}.{name}" if path else f"tf.{name}"
                rename = all_renames_v2.symbol_renames.get(full)
                if not rename:
                    continue
                try:
                    value = getattr(wrapped, name)
                except Exception:  # a lazily loaded module that cannot load here
                    continue
                if module_wrapper.has_deprecation_decorator(value):
                    continue
                table.setdefault(path, {})[name] = rename
    with open(OUT, "w") as f:
        json.dump(table, f, indent=0, sort_keys=True)
        f.write("\n")
    print(sum(len(v) for v in table.values()), "names in", len(table), "modules ->", OUT)


if __name__ == "__main__":
    main()
