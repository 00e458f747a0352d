"""Records which ops TensorFlow 1.15's XLA_CPU device has kernels for, and the dtypes each
kernel takes, into server/tfcluster/runtime/xla_cpu_kernels.json: {op: [{attr: [dtype, ...]}]},
one entry per kernel (a node is taken when one kernel's constraints all hold).

TF 1.15's pip wheels create an XLA_CPU device in every task; its kernels are registered when
the device is made, so the registry is read after a session has started. The runtime places
a node on XLA_CPU only where TF has such a kernel (otherwise TF's placement error, or the CPU
under soft placement).

Run with TF 1.15 itself (Python 3.7; the project never needs TensorFlow):
    /tmp/tf115/bin/python tools/record_xla_cpu_kernels.py
"""

import json
import os

import tensorflow as tf
from tensorflow.python.framework import dtypes, kernels

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "server",
    "tfcluster",
    "runtime",
    "xla_cpu_kernels.json",
)


def main():
    with tf.compat.v1.Session(graph=tf.Graph()):
        pass
    table = {}
    for kdef in kernels.get_all_registered_kernels().kernel:
        # DEFAULT kernels (NoOp, Switch, _Send, ...) serve every device type, XLA_CPU too.
        if kdef.device_type not in ("XLA_CPU", "DEFAULT"):
            continue
        table.setdefault(kdef.op, []).append(
            {
                c.name: sorted(dtypes.as_dtype(t).name for t in c.allowed_values.list.type)
                for c in kdef.constraint
            }
        )
    with open(OUT, "w") as f:
        json.dump(dict(sorted(table.items())), f, indent=0, sort_keys=True)
        f.write("\n")
    print(f"{len(table)} ops with XLA_CPU kernels -> {OUT}")


if __name__ == "__main__":
    main()
