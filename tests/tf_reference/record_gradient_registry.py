"""Records, for every op type of TF 1.15's tf.raw_ops, what TF's gradient table holds.

Run with TF 1.15 itself (Python 3.7): `cd tests/tf_reference && /tmp/tf115/bin/python
record_gradient_registry.py` writes `data/gradient_registry.json`.

Each op type is "gradient" (a registered gradient function), "not_differentiable"
(ops.NotDifferentiable: tf.gradients gives None through it) or "missing" (no entry: the
lookup raises LookupError, and tf.gradients raises it when a gradient reaches the op).

`after_import` is the table right after `import tensorflow` (which loads the *_grad modules).
TF loads a few modules that register gradients only on first use (cond_v2 and while_v2 by
tf.cond / tf.while_loop under control flow v2, tf.contrib's op modules when tf.contrib is
touched); `lazily_loaded` lists the op types whose entry those modules add (with the module of the
gradient function: importing one tf.contrib module loads all of tf.contrib), as seen after
loading them: the table a program using them runs with.
"""

from __future__ import annotations

import importlib
import json
import os
import sys

import tensorflow as tf
from tensorflow.python.framework import ops

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "gradient_registry.json")

# Modules TF imports lazily that register gradients of raw ops.
LAZY_MODULES = (
    "tensorflow.python.ops.cond_v2",
    "tensorflow.python.ops.while_v2",
    "tensorflow.contrib.rnn.python.ops.lstm_ops",
    "tensorflow.contrib.rnn.python.ops.gru_ops",
)


def classify(op_type: str) -> str:
    try:
        fn = ops._gradient_registry.lookup(op_type)
    except LookupError:
        return "missing"
    return "not_differentiable" if fn is None else "gradient"


def _module_of(op_type: str) -> str:
    fn = ops._gradient_registry.lookup(op_type)
    return getattr(fn, "__module__", "") if fn is not None else ""


def main() -> None:
    names = sorted(n for n in dir(tf.raw_ops) if not n.startswith("_"))
    after_import = {n: classify(n) for n in names}
    for mod in LAZY_MODULES:
        importlib.import_module(mod)
    # Each change with the module of the gradient function (tf.contrib registers several).
    lazily = {
        n: {"class": classify(n), "module": _module_of(n)}
        for n in names
        if classify(n) != after_import[n]
    }
    doc = {
        "tensorflow": tf.__version__,
        "lazy_modules": list(LAZY_MODULES),
        "after_import": after_import,
        "lazily_loaded": lazily,
    }
    with open(DATA, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    counts: dict[str, int] = {}
    for v in after_import.values():
        counts[v] = counts.get(v, 0) + 1
    print(
        f"[tf_reference] gradient_registry: {len(names)} ops {counts}, lazily {lazily} -> {DATA}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
