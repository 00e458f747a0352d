"""tf.load_op_library / load_library / load_file_system_library fail as TF 1.15 does on bad
paths (recorded by tests/tf_reference/record_native_libraries.py), and on a real shared
library raise UnimplementedError saying tfcluster has no C++ runtime to register it with."""

from __future__ import annotations

import ctypes.util
import os
from typing import Any

import pytest
import tfcluster as tf
from tf_reference import reference

_LOADERS = ("load_op_library", "load_library", "load_file_system_library")


def _outcome(fn: Any, path: str, folder: str) -> dict[str, Any]:
    try:
        fn(path)
        return {"returned": True}
    except Exception as e:
        return {"error": type(e).__name__, "message": str(e).replace(folder, "<dir>")}


@pytest.mark.parametrize("name", _LOADERS)
def test_missing_and_non_library_files_fail_as_in_tf(name: str, tmp_path: Any) -> None:
    folder = str(tmp_path)
    not_a_library = tmp_path / "notalib.so"
    not_a_library.write_text("x")
    fn = getattr(tf, name)
    for case, path in (
        ("missing", str(tmp_path / "missing.so")),
        ("not_a_library", str(not_a_library)),
    ):
        assert _outcome(fn, path, folder) == reference.case("native_libraries", f"{name}_{case}")


def test_a_folder_without_libraries_loads_nothing(tmp_path: Any) -> None:
    recorded = reference.case("native_libraries", "load_library_empty_folder")
    assert _outcome(tf.load_library, str(tmp_path), str(tmp_path)) == recorded


@pytest.mark.parametrize("name", _LOADERS)
def test_a_real_shared_library_is_unimplemented_with_the_reason(name: str) -> None:
    libm = ctypes.util.find_library("m")
    assert libm is not None
    path = next(
        os.path.join(d, libm)
        for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib")
        if os.path.exists(os.path.join(d, libm))
    )
    with pytest.raises(tf.errors.UnimplementedError, match="no TensorFlow C\\+\\+ runtime"):
        getattr(tf, name)(path)


def test_build_flags_at_top_level_as_tf() -> None:
    recorded = reference.case("native_libraries", "flags")
    assert (
        recorded["cxx11_abi_flag"],
        recorded["monolithic_build"],
    ) == (tf.CXX11_ABI_FLAG, tf.MONOLITHIC_BUILD)
