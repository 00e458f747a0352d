"""Records TF 1.15's answers for small API names (tf.sysconfig, tf.debugging's device
placement flag): tests/unit/test_small_names.py compares tfcluster's with them. Paths are
stored as <include>/<lib> since they name TF's install. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_small_names.py
"""

from __future__ import annotations

import tensorflow as tf
from recorder import Recorder

if not tf.__version__.startswith("1."):
    raise SystemExit("record_small_names.py records TensorFlow 1.15")

rec = Recorder("small_names")
sc = tf.sysconfig
include, lib = sc.get_include(), sc.get_lib()
rec.add(
    "sysconfig",
    compile_flags=[f.replace(include, "<include>") for f in sc.get_compile_flags()],
    link_flags=[f.replace(lib, "<lib>") for f in sc.get_link_flags()],
    cxx11_abi_flag=sc.CXX11_ABI_FLAG,
    monolithic_build=sc.MONOLITHIC_BUILD,
)
placements = [tf.debugging.get_log_device_placement()]
tf.debugging.set_log_device_placement(True)
placements.append(tf.debugging.get_log_device_placement())
tf.debugging.set_log_device_placement(False)
placements.append(tf.debugging.get_log_device_placement())
rec.add("log_device_placement", values=placements)
rec.save()
