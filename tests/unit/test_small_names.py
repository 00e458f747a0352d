"""tf.sysconfig and tf.debugging's device-placement flag answer as TF 1.15 does (recorded by
tests/tf_reference/record_small_names.py), except where tfcluster has no C++ library."""

from __future__ import annotations

import os

import tfcluster as tf
from tf_reference import reference


def test_sysconfig_flags_have_tf_form_without_a_library_to_link() -> None:
    recorded = reference.case("small_names", "sysconfig")
    include, lib = tf.sysconfig.get_include(), tf.sysconfig.get_lib()
    assert os.path.isdir(include) and os.path.isdir(lib)
    assert [f.replace(include, "<include>") for f in tf.sysconfig.get_compile_flags()] == (
        recorded["compile_flags"]
    )
    # TF also names -l:libtensorflow_framework.so.1; tfcluster has no such library.
    assert [f.replace(lib, "<lib>") for f in tf.sysconfig.get_link_flags()] == (
        recorded["link_flags"][:1]
    )
    assert recorded["cxx11_abi_flag"] == tf.sysconfig.CXX11_ABI_FLAG
    assert recorded["monolithic_build"] == tf.sysconfig.MONOLITHIC_BUILD


def test_log_device_placement_flag_is_set_and_read_back() -> None:
    values = [tf.debugging.get_log_device_placement()]
    tf.debugging.set_log_device_placement(True)
    values.append(tf.debugging.get_log_device_placement())
    tf.debugging.set_log_device_placement(False)
    values.append(tf.debugging.get_log_device_placement())
    assert values == reference.case("small_names", "log_device_placement")["values"]
