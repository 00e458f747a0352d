"""Records TF 1.15's errors from tf.load_op_library / load_library / load_file_system_library
for paths that are missing, a folder without libraries, and a file that is no library.
tests/unit/test_native_libraries.py makes the same paths. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_native_libraries.py
"""

from __future__ import annotations

import os
import tempfile

import tensorflow as tf
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_native_libraries.py records TensorFlow 1.15")

rec = Recorder("native_libraries")
with tempfile.TemporaryDirectory() as folder:
    missing = os.path.join(folder, "missing.so")
    not_a_library = os.path.join(folder, "notalib.so")
    with open(not_a_library, "w") as f:
        f.write("x")
    empty = os.path.join(folder, "empty")
    os.mkdir(empty)

    def outcome(fn, path):
        try:
            fn(path)
            return {"returned": True}
        except Exception as e:
            return {"error": type(e).__name__, "message": str(e).replace(folder, "<dir>")}

    for name in ("load_op_library", "load_library", "load_file_system_library"):
        fn = getattr(tf, name)
        rec.add(name + "_missing", **outcome(fn, missing))
        rec.add(name + "_not_a_library", **outcome(fn, not_a_library))
    rec.add("load_library_empty_folder", **outcome(tf.load_library, empty))
rec.add("flags", cxx11_abi_flag=tf.CXX11_ABI_FLAG, monolithic_build=tf.MONOLITHIC_BUILD)
rec.save()
