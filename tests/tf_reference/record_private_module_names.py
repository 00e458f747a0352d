"""Writes server/tfcluster/python/_tf115_private_names.py: the names TF 1.15's private modules
that TF1 programs import by path hold (tensorflow.python.ops.rnn_cell_impl, ...), and for its
generated op modules (gen_math_ops, ...) each wrapper's op type and signature.

    cd tests/tf_reference && /tmp/tf115/bin/python record_private_module_names.py
"""

import __future__

import importlib
import inspect
import os
import pprint
import re
import types

import tensorflow as tf

MODULES = [
    "python.client.session",
    "python.eager.context",
    "python.framework.constant_op",
    "python.framework.function",
    "python.framework.graph_io",
    "python.framework.importer",
    "python.framework.random_seed",
    "python.layers.base",
    "python.layers.core",
    "python.lib.io.tf_record",
    "python.ops.gen_array_ops",
    "python.ops.gen_math_ops",
    "python.ops.gen_nn_ops",
    "python.ops.gradients",
    "python.ops.gradients_impl",
    "python.ops.lookup_ops",
    "python.ops.nn_impl",
    "python.ops.rnn",
    "python.ops.rnn_cell",
    "python.ops.rnn_cell_impl",
    "python.summary.summary",
    "python.summary.summary_iterator",
    "python.tools.freeze_graph",
    "python.training.adadelta",
    "python.training.adagrad",
    "python.training.adam",
    "python.training.ftrl",
    "python.training.gradient_descent",
    "python.training.momentum",
    "python.training.rmsprop",
    "python.training.server_lib",
    "python.util.deprecation",
]
# Modules holding generated op wrappers (lookup_ops holds gen_lookup_ops' own).
GEN_MODULES = [
    "python.ops.gen_array_ops",
    "python.ops.gen_math_ops",
    "python.ops.gen_nn_ops",
    "python.ops.lookup_ops",
]


def _names(module):
    return sorted(
        k
        for k, v in vars(module).items()
        if not k.startswith("__") and not isinstance(v, (types.ModuleType, __future__._Feature))
    )


def _default(value):
    if isinstance(value, tf.DType):
        return {"dtype": value.name}
    return value


def _gen_ops(module):
    """wrapper name -> [op type, [[param] or [param, default], ...]]."""
    out = {}
    for key, value in vars(module).items():
        if not (key[:1].isupper() and isinstance(value, types.FunctionType)):
            continue
        if not hasattr(value, "__wrapped__"):
            continue
        match = re.search(r"return (\w+)\(", inspect.getsource(value.__wrapped__))
        if not match or not hasattr(module, match.group(1)):
            continue
        fn = getattr(module, match.group(1))
        params = []
        for p in inspect.signature(fn).parameters.values():
            if p.default is inspect.Parameter.empty:
                params.append([p.name])
            else:
                params.append([p.name, _default(p.default)])
        out[match.group(1)] = [key, params]
    return dict(sorted(out.items()))


def main():
    names = {m: _names(importlib.import_module("tensorflow." + m)) for m in MODULES}
    gen = {m: _gen_ops(importlib.import_module("tensorflow." + m)) for m in GEN_MODULES}
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(
        here, "..", "..", "server", "tfcluster", "python", "_tf115_private_names.py"
    )
    with open(path, "w") as f:
        f.write(
            '"""TF 1.15\'s private modules that programs import by path: their names, and each\n'
        )
        f.write("generated op wrapper's op type and signature (written by\n")
        f.write('tests/tf_reference/record_private_module_names.py)."""\n\n')
        f.write("NAMES = " + pprint.pformat(names, width=100, compact=True) + "\n\n")
        f.write("GEN_OPS = " + pprint.pformat(gen, width=100, compact=True) + "\n")


main()
