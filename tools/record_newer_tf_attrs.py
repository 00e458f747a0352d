"""Records the attrs a newer TensorFlow (the reference venv's 2.x) gives the ops TF 1.15 has,
that TF 1.15's OpDefs lack, into server/tfcluster/framework/newer_tf_attrs.json.

TF adds attrs to existing ops over its versions (MatMul's grad_a and grad_b, say), and GraphDefs
a newer TensorFlow writes carry them. tfcluster reads those GraphDefs (their ops compute what
TF 1.15's compute); an attr that no TensorFlow version has is refused as TF 1.15 refuses any
attr its OpDef lacks.

Run with the reference venv's TensorFlow (the project never needs TensorFlow):
    bench/.venv-tf/bin/python tools/record_newer_tf_attrs.py
"""

import json
import os

import tensorflow as tf
from tensorflow.python.framework import op_def_registry

FRAMEWORK = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "server", "tfcluster", "framework"
)


def main() -> None:
    with open(os.path.join(FRAMEWORK, "tf115_op_defs.json")) as f:
        tf115 = json.load(f)["ops"]
    newer: dict = {}
    for name, sig in sorted(tf115.items()):
        op_def = op_def_registry.get(name)
        if op_def is None:
            continue
        known = {a["name"] for a in sig["attrs"]}
        added = {a.name: a.type for a in op_def.attr if a.name not in known}
        if added:
            newer[name] = dict(sorted(added.items()))
    out = {"tensorflow_version": tf.__version__, "ops": newer}
    with open(os.path.join(FRAMEWORK, "newer_tf_attrs.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(newer)} ops with attrs TF 1.15 lacks (TensorFlow {tf.__version__})")


if __name__ == "__main__":
    main()
