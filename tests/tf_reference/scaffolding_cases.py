"""The scaffolding scenarios, written once against a `tf` module: record_scaffolding.py runs
them with TensorFlow (tensorflow.compat.v1) and stores what they return; the tests run them
with tfcluster and compare. Each returns {case name: {value name: value}}.

Failures are recorded as ["error", class name, message], with the temporary tree's path in
messages written as <root>.
"""

from __future__ import annotations

import os
import pathlib
import re
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np

try:
    from tf_reference.case_tools import run_script
except ImportError:  # run by the recorder from tests/tf_reference
    from case_tools import run_script

ROOT_MARK = "<root>"


def outcome(fn: Callable[[], Any], root: str | None = None) -> list[Any]:
    try:
        return ["ok", fn()]
    except Exception as e:
        message = str(e)
        if root:
            message = message.replace(root, ROOT_MARK)
        return ["error", type(e).__name__, message]


# ---- tf.compat ------------------------------------------------------------------------------


def compat_cases(tf: Any) -> dict[str, dict[str, Any]]:
    c = tf.compat
    shape = tf.TensorShape([2, None, 5])
    with c.forward_compatibility_horizon(2100, 1, 2):
        inside = [c.forward_compatible(2100, 1, 1), c.forward_compatible(2100, 1, 2)]
    return {
        "compat_conversions": {
            "as_bytes_text": c.as_bytes("héllo"),
            "as_bytes_bytes": c.as_bytes(b"raw"),
            "as_bytes_bytearray": c.as_bytes(bytearray(b"arr")),
            "as_bytes_latin1": c.as_bytes("é", encoding="latin-1"),
            "as_bytes_int": outcome(lambda: c.as_bytes(1)),
            "as_bytes_bad_encoding": outcome(lambda: c.as_bytes("x", encoding="no-such-codec")),
            "as_text_bytes": c.as_text("héllo".encode()),
            "as_text_text": c.as_text("plain"),
            "as_text_int": outcome(lambda: c.as_text(1)),
            "as_text_bad_utf8": outcome(lambda: c.as_text(b"\xff")),
            "as_str_bytes": c.as_str(b"abc"),
            "as_str_any_int": c.as_str_any(5),
            "as_str_any_bytes": c.as_str_any(b"xyz"),
            "as_str_any_list": c.as_str_any([1, 2]),
            "path_to_str_path": c.path_to_str(pathlib.PurePosixPath("a/b/../c")),
            "path_to_str_str": c.path_to_str("./x/../y"),
            "path_to_str_int": c.path_to_str(7),
        },
        "compat_type_tuples": {
            "integral": [
                isinstance(v, c.integral_types) for v in (1, np.int32(1), 1.0, True, np.uint8(2))
            ],
            "real": [isinstance(v, c.real_types) for v in (1, np.float16(1), 1.0, 1j, np.int64(3))],
            "complex": [isinstance(v, c.complex_types) for v in (1, 1j, np.complex64(1), "1")],
            "bytes_or_text": [isinstance(v, c.bytes_or_text_types) for v in (b"", "", bytearray())],
        },
        "compat_dimensions": {
            "value_of_dimension": c.dimension_value(tf.Dimension(3)),
            "value_of_unknown": c.dimension_value(tf.Dimension(None)),
            "value_of_int": c.dimension_value(4),
            "value_of_none": c.dimension_value(None),
            "at_index": [c.dimension_at_index(shape, i).value for i in range(3)],
            "at_index_negative": c.dimension_at_index(shape, -1).value,
            "at_index_unknown_rank": c.dimension_at_index(tf.TensorShape(None), 7).value,
            "top_level_is_compat": [
                tf.dimension_value is c.dimension_value,
                tf.dimension_at_index is c.dimension_at_index,
            ],
        },
        "compat_forward_compatibility": {
            "long_ago": c.forward_compatible(2000, 1, 1),
            "far_future": c.forward_compatible(2100, 1, 1),
            "inside_horizon_2100_1_2": inside,
            "after_context": c.forward_compatible(2100, 1, 1),
        },
    }


def logging_cases(tf: Any) -> dict[str, dict[str, Any]]:
    lg = tf.logging
    return {
        "logging_levels": {
            "DEBUG": lg.DEBUG,
            "INFO": lg.INFO,
            "WARN": lg.WARN,
            "ERROR": lg.ERROR,
            "FATAL": lg.FATAL,
            "flush": outcome(lg.flush)[:2],
        }
    }


# ---- tf.gfile on a temporary tree -----------------------------------------------------------

TREE = {
    "a.txt": b"hello\nworld\n",
    "b.bin": bytes(range(256)),
    ".hidden": b"h",
    "crlf.txt": b"one\r\ntwo\r\n",
    "ab.txt": b"ab",
    "sub/c.txt": b"c",
    "sub/deeper/d.txt": b"d",
    "sub/deeper/e.log": b"e",
}


def make_tree(root: str) -> None:
    os.makedirs(os.path.join(root, "sub", "deeper"))
    os.makedirs(os.path.join(root, "empty"))
    for name, data in TREE.items():
        with open(os.path.join(root, name), "wb") as f:
            f.write(data)


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def gfile_cases(tf: Any) -> dict[str, dict[str, Any]]:
    """Every tf.gfile / tf.io.gfile scenario, each on a fresh tree."""
    out = {}
    for name, scenario in (
        ("gfile_queries", _gfile_queries),
        ("gfile_glob", _gfile_glob),
        ("gfile_glob_special", _gfile_glob_special),
        ("gfile_directories", _gfile_directories),
        ("gfile_changes", _gfile_changes),
        ("gfile_reads", _gfile_reads),
        ("gfile_writes", _gfile_writes),
        ("gfile_schemes", _gfile_schemes),
    ):
        with tempfile.TemporaryDirectory(prefix="scaffolding_gfile_") as root:
            make_tree(root)
            out[name] = scenario(tf, root)
    return out


def _gfile_queries(tf: Any, root: str) -> dict[str, Any]:
    gf = tf.gfile

    def p(*parts: str) -> str:
        return os.path.join(root, *parts)

    def err(fn: Callable[[], Any]) -> list[Any]:
        return outcome(fn, root)

    stat = gf.Stat(p("b.bin"))
    return {
        "exists": [gf.Exists(p("a.txt")), gf.Exists(p("sub")), gf.Exists(p("missing"))],
        "exists_under_file": gf.Exists(p("a.txt", "x")),
        "is_directory": [
            gf.IsDirectory(p("a.txt")),
            gf.IsDirectory(p("sub")),
            gf.IsDirectory(p("no")),
        ],
        "list_root": sorted(gf.ListDirectory(root)),
        "list_empty": gf.ListDirectory(p("empty")),
        "list_missing": err(lambda: gf.ListDirectory(p("missing"))),
        "list_file": err(lambda: gf.ListDirectory(p("a.txt"))),
        "walk": [[os.path.relpath(d, root), sorted(s), sorted(f)] for d, s, f in gf.Walk(root)],
        "walk_bottom_up_order": [
            os.path.relpath(d, root) for d, _, _ in gf.Walk(root, in_order=False)
        ],
        "walk_missing": list(gf.Walk(p("missing"))),
        "walk_file": list(gf.Walk(p("a.txt"))),
        "io_walk_onerror": err(lambda: list(tf.io.gfile.walk(p("missing"), onerror=print)))[:2],
        "stat_file": [stat.length, stat.is_directory],
        "stat_dir_is_directory": gf.Stat(p("sub")).is_directory,
        "stat_mtime_whole_seconds": stat.mtime_nsec % 1_000_000_000 == 0,
        "stat_mtime_matches_os": stat.mtime_nsec // 1_000_000_000
        == int(os.stat(p("b.bin")).st_mtime),
        "stat_missing": err(lambda: gf.Stat(p("missing"))),
    }


def _rel(root: str, paths: list[str]) -> list[str]:
    return sorted(os.path.relpath(x, root) if os.path.isabs(x) else x for x in paths)


_GLOBS = {
    "star_txt": ("*.txt",),
    "question": ("a?.txt",),
    "bracket": ("[ab].*",),
    "bracket_negated_bang": ("[!a]*",),
    "bracket_negated_caret": ("[^a]*",),
    "range": ("[a-b]*.txt",),
    "two_levels": ("*", "*.txt"),
    "three_levels": ("sub", "*", "*"),
    "star_matches_dotfiles": ("*hidden",),
    "leading_star": ("*",),
    "exact_existing": ("a.txt",),
    "exact_missing": ("zzz.txt",),
    "escaped_star": ("a\\*.txt",),
    "dir_prefix_wildcard": ("su*", "c.txt"),
}


def _gfile_glob(tf: Any, root: str) -> dict[str, Any]:
    out = {k: _rel(root, tf.gfile.Glob(os.path.join(root, *v))) for k, v in _GLOBS.items()}
    out["trailing_slash"] = _rel(root, tf.gfile.Glob(os.path.join(root, "sub") + "/"))
    out["double_slash"] = _rel(root, tf.gfile.Glob(root + "//a.txt"))
    return out


def _gfile_glob_special(tf: Any, root: str) -> dict[str, Any]:
    gf = tf.gfile

    def p(*parts: str) -> str:
        return os.path.join(root, *parts)

    cwd = os.getcwd()
    os.chdir(root)
    try:
        relative = gf.Glob("*.txt")
        relative_sub = gf.Glob("sub/*.txt")
    finally:
        os.chdir(cwd)
    return {
        "relative": sorted(relative),
        "relative_sub": sorted(relative_sub),
        "list_of_patterns": _rel(root, gf.Glob([p("*.bin"), p("sub", "*.txt")])),
        "missing_directory": outcome(lambda: _rel(root, gf.Glob(p("missing", "*.txt"))), root),
        "missing_directory_exact": outcome(
            lambda: _rel(root, gf.Glob(p("missing", "x.txt"))), root
        ),
        "under_file": outcome(lambda: _rel(root, gf.Glob(p("a.txt", "*"))), root),
        "empty_pattern": gf.Glob(""),
        "io_glob_is_same": _rel(root, tf.io.gfile.glob(p("*.txt")))
        == _rel(root, gf.Glob(p("*.txt"))),
        "returns_str": all(isinstance(x, str) for x in gf.Glob(p("*"))),
    }


def _gfile_directories(tf: Any, root: str) -> dict[str, Any]:
    gf = tf.gfile

    def p(*parts: str) -> str:
        return os.path.join(root, *parts)

    def err(fn: Callable[[], Any]) -> list[Any]:
        return outcome(fn, root)

    out: dict[str, Any] = {}
    out["mkdir_existing"] = err(lambda: gf.MkDir(p("sub")))
    out["mkdir_missing_parent"] = err(lambda: gf.MkDir(p("no", "such")))
    out["mkdir_new"] = err(lambda: gf.MkDir(p("made")))
    out["mkdir_new_isdir"] = gf.IsDirectory(p("made"))
    out["mkdir_on_file"] = err(lambda: gf.MkDir(p("a.txt")))
    out["makedirs_nested"] = err(lambda: gf.MakeDirs(p("x", "y", "z")))
    out["makedirs_nested_isdir"] = gf.IsDirectory(p("x", "y", "z"))
    out["makedirs_existing"] = err(lambda: gf.MakeDirs(p("sub", "deeper")))
    out["makedirs_trailing_slash"] = err(lambda: gf.MakeDirs(p("t1", "t2") + "/"))
    out["makedirs_trailing_slash_isdir"] = gf.IsDirectory(p("t1", "t2"))
    out["makedirs_on_file"] = err(lambda: gf.MakeDirs(p("a.txt")))
    out["makedirs_under_file"] = err(lambda: gf.MakeDirs(p("a.txt", "q")))
    out["io_makedirs"] = err(lambda: tf.io.gfile.makedirs(p("io", "made")))
    return out


def _gfile_changes(tf: Any, root: str) -> dict[str, Any]:
    gf = tf.gfile

    def p(*parts: str) -> str:
        return os.path.join(root, *parts)

    def err(fn: Callable[[], Any]) -> list[Any]:
        return outcome(fn, root)

    out: dict[str, Any] = {}
    out["remove_missing"] = err(lambda: gf.Remove(p("missing")))
    out["remove_dir"] = err(lambda: gf.Remove(p("empty")))
    gf.Copy(p("ab.txt"), p("ab2.txt"))
    out["remove_file"] = err(lambda: gf.Remove(p("ab2.txt")))
    out["remove_file_gone"] = gf.Exists(p("ab2.txt"))
    out["rmtree_missing"] = err(lambda: gf.DeleteRecursively(p("missing")))
    gf.Copy(p("ab.txt"), p("single.txt"))
    out["rmtree_file"] = err(lambda: gf.DeleteRecursively(p("single.txt")))
    out["rmtree_file_gone"] = gf.Exists(p("single.txt"))
    gf.MakeDirs(p("tree", "a", "b"))
    gf.Copy(p("ab.txt"), p("tree", "a", "b", "f.txt"))
    out["rmtree_tree"] = err(lambda: gf.DeleteRecursively(p("tree")))
    out["rmtree_tree_gone"] = gf.Exists(p("tree"))
    out["copy_existing_no_overwrite"] = err(lambda: gf.Copy(p("ab.txt"), p("a.txt")))
    out["copy_overwrite"] = err(lambda: gf.Copy(p("ab.txt"), p("c1.txt"), overwrite=True))
    gf.Copy(p("a.txt"), p("c1.txt"), overwrite=True)
    out["copy_overwrite_content"] = _read_bytes(p("c1.txt"))
    out["copy_missing_src"] = err(lambda: gf.Copy(p("missing"), p("c2.txt")))
    out["copy_missing_dst_dir"] = err(lambda: gf.Copy(p("a.txt"), p("nodir", "c.txt")))
    out["copy_onto_dir_overwrite"] = err(lambda: gf.Copy(p("a.txt"), p("empty"), True))
    out["copy_dir_src"] = err(lambda: gf.Copy(p("sub"), p("subcopy")))
    out["rename_existing_no_overwrite"] = err(lambda: gf.Rename(p("c1.txt"), p("a.txt")))
    gf.Copy(p("ab.txt"), p("r1.txt"))
    out["rename_overwrite"] = err(lambda: gf.Rename(p("r1.txt"), p("c1.txt"), True))
    out["rename_overwrite_result"] = [gf.Exists(p("r1.txt")), _read_bytes(p("c1.txt"))]
    out["rename_missing_src"] = err(lambda: gf.Rename(p("missing"), p("r2.txt")))
    gf.MakeDirs(p("d1"))
    out["rename_dir"] = err(lambda: gf.Rename(p("d1"), p("d2")))
    out["rename_dir_result"] = [gf.Exists(p("d1")), gf.IsDirectory(p("d2"))]
    out["rename_dir_onto_nonempty_dir"] = err(lambda: gf.Rename(p("d2"), p("sub"), True))
    out["io_rename_existing"] = err(lambda: tf.io.gfile.rename(p("c1.txt"), p("a.txt")))
    out["io_copy_existing"] = err(lambda: tf.io.gfile.copy(p("c1.txt"), p("a.txt")))
    out["io_remove_missing"] = err(lambda: tf.io.gfile.remove(p("missing")))
    out["io_rmtree_missing"] = err(lambda: tf.io.gfile.rmtree(p("missing")))
    out["io_mkdir_existing"] = err(lambda: tf.io.gfile.mkdir(p("sub")))
    return out


def _gfile_reads(tf: Any, root: str) -> dict[str, Any]:
    gf = tf.gfile

    def p(*parts: str) -> str:
        return os.path.join(root, *parts)

    def err(fn: Callable[[], Any]) -> list[Any]:
        return outcome(fn, root)

    out: dict[str, Any] = {}
    with gf.GFile(p("a.txt")) as f:
        out["read_text"] = f.read()
    with gf.GFile(p("a.txt"), "rb") as f:
        out["read_binary"] = f.read()
    with gf.GFile(p("a.txt")) as f:
        out["read_parts"] = [f.read(3), f.read(4), f.read(), f.read()]
    with gf.GFile(p("a.txt")) as f:
        out["readline"] = [f.readline(), f.readline(), f.readline()]
    with gf.GFile(p("a.txt")) as f:
        out["readlines"] = f.readlines()
    with gf.GFile(p("a.txt"), "rb") as f:
        out["iterate_binary"] = list(f)
    with gf.GFile(p("a.txt")) as f:
        out["iterate_text_next"] = [next(f), f.next()]
    with gf.GFile(p("crlf.txt")) as f:
        out["crlf_kept"] = f.read()
    with gf.GFile(p("b.bin"), "rb") as f:
        f.seek(10)
        first = f.read(2)
        tell_after = f.tell()
        f.seek(5, 1)
        second = f.read(1)
        f.seek(-3, 2)
        last = f.read()
        f.seek(position=1)
        by_position = f.read(1)
        out["seek_tell"] = [first, tell_after, second, last, by_position, f.size()]
        out["seek_bad_whence"] = err(lambda: f.seek(0, 3))
        out["seek_negative"] = err(lambda: f.seek(-1))
        out["seek_both"] = err(lambda: f.seek(1, position=1))
        out["seek_none"] = err(lambda: f.seek())
        out["seek_to_end"] = err(lambda: (f.seek(256), f.read())[1])
        out["seek_past_end"] = err(lambda: f.seek(1000))
        out["read_after_seek_past_end"] = err(f.read)
        out["seekable"] = f.seekable()
    lazy = gf.GFile(p("missing.txt"))
    out["open_missing_is_lazy"] = True
    out["read_missing"] = err(lazy.read)
    out["read_directory"] = err(lambda: gf.GFile(p("sub")).read())
    out["bad_mode"] = err(lambda: gf.GFile(p("a.txt"), "x"))
    out["write_in_read_mode"] = err(lambda: gf.GFile(p("a.txt")).write("x"))
    out["read_in_write_mode"] = err(lambda: gf.GFile(p("w0.txt"), "w").read())
    out["size_missing"] = err(lambda: gf.GFile(p("missing.txt")).size())
    out["fast_gfile"] = gf.FastGFile(p("a.txt"), "rb").read()
    out["open_alias"] = gf.Open(p("a.txt")).read()
    out["io_gfile"] = tf.io.gfile.GFile(p("a.txt")).read()
    out["name_and_mode"] = [gf.GFile(p("a.txt"), "rb").mode, gf.GFile("rel.txt").name]
    out["gfile_mode_strings"] = [
        outcome(lambda m=m: gf.GFile(p("a.txt"), m).mode) for m in ("r+", "rb+", "wb+", "a+b")
    ]
    return out


def _gfile_writes(tf: Any, root: str) -> dict[str, Any]:
    gf = tf.gfile

    def p(*parts: str) -> str:
        return os.path.join(root, *parts)

    def err(fn: Callable[[], Any]) -> list[Any]:
        return outcome(fn, root)

    out: dict[str, Any] = {}
    gf.GFile(p("never_written.txt"), "w").close()
    out["unwritten_w_creates_nothing"] = gf.Exists(p("never_written.txt"))
    with gf.GFile(p("w1.txt"), "w") as f:
        f.write("text ")
        f.write(b"bytes")
        out["tell_after_writes"] = f.tell()
    out["written"] = _read_bytes(p("w1.txt"))
    with gf.GFile(p("w1.txt"), "a") as f:
        f.write("+more")
    out["appended"] = _read_bytes(p("w1.txt"))
    with gf.GFile(p("w2.bin"), "wb") as f:
        f.write("str in binary mode")
    out["str_in_binary_mode"] = _read_bytes(p("w2.bin"))
    out["write_int"] = err(lambda: gf.GFile(p("w3.txt"), "w").write(1))
    g = gf.GFile(p("w4.txt"), "w")
    g.write("flushed")
    g.flush()
    out["visible_after_flush"] = _read_bytes(p("w4.txt"))
    g.close()
    out["write_missing_dir"] = err(lambda: gf.GFile(p("nodir", "f.txt"), "w").write("x"))
    with gf.GFile(p("w5.txt"), "w") as f:
        f.write("0123456789")
    with gf.GFile(p("w5.txt"), "r+") as f:
        head = f.read(3)
        f.write("XY")
    out["r_plus"] = [head, _read_bytes(p("w5.txt"))]
    with gf.GFile(p("w6.txt"), "w+") as f:
        f.write("abc")
        f.flush()
        out["w_plus_read_after_flush"] = f.read()
    return out


def _gfile_schemes(tf: Any, root: str) -> dict[str, Any]:
    gf = tf.gfile
    a_txt = os.path.join(root, "a.txt")
    return {
        "hdfs_open": outcome(lambda: gf.GFile("hdfs://namenode/x").read())[:2],
        "s3_glob": outcome(lambda: gf.Glob("s3://bucket/*"))[:2],
        "file_scheme_exists": gf.Exists("file://" + a_txt),
        "file_scheme_read": outcome(lambda: gf.GFile("file://" + a_txt).read()),
        "file_scheme_glob": all(
            x.startswith("file://") for x in gf.Glob("file://" + os.path.join(root, "*.txt"))
        ),
        "pathlike": gf.Exists(pathlib.Path(a_txt)),
        "bytes_path": gf.Exists(a_txt.encode()),
    }


# ---- tf.test ----------------------------------------------------------------------------------

ASSERTION_CASES: list[tuple[str, Any, dict[str, Any]]] = [
    ("assertAllClose", ([1.0, 2.0], [1.0, 2.0 + 1e-7]), {}),
    ("assertAllClose", ([1.0], [1.1]), {}),
    ("assertAllClose", ([1.0], [1.1]), {"atol": 0.2}),
    ("assertAllClose", (1.0, 1.0 + 1e-5), {}),
    ("assertAllClose", (1.0, 1.0 + 1e-5), {"rtol": 1e-4}),
    ("assertAllClose", ([1.0, 2.0], [[1.0, 2.0]]), {}),
    ("assertAllClose", ({"a": [1.0], "b": (2.0, 3.0)}, {"a": [1.0], "b": (2.0, 3.0)}), {}),
    ("assertAllClose", ({"a": [1.0]}, {"b": [1.0]}), {}),
    ("assertAllClose", ([[1.0], [2.0, 3.0]], [[1.0], [2.0, 3.0]]), {}),
    ("assertAllClose", (float("nan"), float("nan")), {}),
    ("assertAllClose", (np.float16(1.0), np.float16(1.001)), {}),
    ("assertAllClose", ([1, 2], [1.0, 2.0]), {}),
    ("assertAllCloseAccordingToType", (np.float16(1.0), np.float16(1.0005)), {}),
    ("assertAllCloseAccordingToType", (np.float32(1.0), np.float32(1.0001)), {}),
    ("assertAllCloseAccordingToType", (np.float64(1.0), np.float64(1.0001)), {}),
    ("assertNotAllClose", ([1.0], [1.1]), {}),
    ("assertNotAllClose", ([1.0], [1.0]), {}),
    ("assertAllEqual", ([1, 2], [1, 2]), {}),
    ("assertAllEqual", ([1, 2], [1, 3]), {}),
    ("assertAllEqual", ([1, 2], [[1, 2]]), {}),
    ("assertAllEqual", ([b"a", b"b"], [b"a", b"b"]), {}),
    ("assertAllEqual", (3, np.array(3)), {}),
    ("assertAllInRange", ([1, 2, 3], 1, 3), {}),
    ("assertAllInRange", ([1, 2, 3], 1, 3), {"open_lower_bound": True}),
    ("assertAllInRange", ([1, 2, 3], 1, 3), {"open_upper_bound": True}),
    ("assertAllInRange", ([1.0, float("nan")], 0.0, 2.0), {}),
    ("assertAllInSet", ([1, 2, 1], [1, 2]), {}),
    ("assertAllInSet", ([1, 3], [1, 2]), {}),
    ("assertAllGreater", ([2, 3], 1), {}),
    ("assertAllGreater", ([1, 3], 1), {}),
    ("assertAllGreaterEqual", ([1, 3], 1), {}),
    ("assertAllLess", ([0, 0.5], 1), {}),
    ("assertAllLess", ([0, 1], 1), {}),
    ("assertAllLessEqual", ([0, 1], 1), {}),
    ("assertArrayNear", ([1.0, 2.0], [1.05, 2.0], 0.1), {}),
    ("assertArrayNear", ([1.0, 2.0], [1.2, 2.0], 0.1), {}),
    ("assertArrayNear", ([1.0, 2.0], [1.0], 0.1), {}),
    ("assertNear", (1.0, 1.05, 0.1), {}),
    ("assertNear", (1.0, 1.2, 0.1), {}),
    ("assertDeviceEqual", ("/cpu:0", "/device:CPU:0"), {}),
    ("assertDeviceEqual", ("/job:w/gpu:1", "/job:w/device:GPU:1"), {}),
    ("assertDeviceEqual", ("/gpu:0", "/cpu:0"), {}),
    ("assertDTypeEqual", (np.zeros(2, np.float32), np.float32), {}),
    ("assertDTypeEqual", (np.zeros(2, np.float32), np.float64), {}),
    ("assertStartsWith", ("tensorflow", "tensor"), {}),
    ("assertStartsWith", ("tensorflow", "flow"), {}),
    ("assertItemsEqual", ([1, 2, 2], [2, 1, 2]), {}),
    ("assertProtoEquals", lambda tf: ("dim { size: 2 }", tf.TensorShape([2]).as_proto()), {}),
    ("assertProtoEquals", lambda tf: ("dim { size: 3 }", tf.TensorShape([2]).as_proto()), {}),
]


def assertion_cases(tf: Any) -> dict[str, dict[str, Any]]:
    """Which of ASSERTION_CASES pass, and the class of what the others raise."""

    class Probe(tf.test.TestCase):
        def runTest(self) -> None:
            pass

    probe = Probe()
    probe.setUp()
    outcomes = []
    for method, args, kwargs in ASSERTION_CASES:
        values = args(tf) if callable(args) else args
        got = outcome(lambda m=method, a=values, k=kwargs: getattr(probe, m)(*a, **k))
        outcomes.append("pass" if got[0] == "ok" else got[1])
    with tf.Graph().as_default():
        shape_ok = outcome(lambda: probe.assertShapeEqual(np.zeros((2, 3)), tf.zeros([2, 3])))
        shape_bad = outcome(lambda: probe.assertShapeEqual(np.zeros((2, 3)), tf.zeros([3, 2])))
        shape_type = outcome(lambda: probe.assertShapeEqual([1, 2], tf.zeros([2])))
    probe.tearDown()
    return {
        "test_assertions": {
            "cases": [m for m, _, _ in ASSERTION_CASES],
            "outcomes": outcomes,
            "shape_equal": [shape_ok[0], shape_bad[1], shape_type[1]],
        }
    }


def gradient_cases(tf: Any) -> dict[str, dict[str, Any]]:
    """tf.test.compute_gradient(_error) on fixed inputs, one x and a list of two."""
    x_value = np.array([[0.5, -1.0], [2.0, 0.25]], dtype=np.float64)
    a_value = np.array([1.0, 2.0, 3.0], np.float32)
    b_value = np.array([[0.5], [1.5]], np.float32)
    with tf.Graph().as_default(), tf.Session():
        x = tf.constant(x_value)
        weights = tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float64)
        y = tf.reduce_sum(tf.square(x) * weights, axis=1)
        theoretical, numeric = tf.test.compute_gradient(x, [2, 2], y, [2], x_init_value=x_value)
        error = tf.test.compute_gradient_error(x, [2, 2], y, [2], x_init_value=x_value)
        a = tf.constant(a_value)
        b = tf.constant(b_value)
        z = tf.matmul(b, tf.reshape(a, [1, 3]))
        pairs = tf.test.compute_gradient(
            [a, b], [[3], [2, 1]], z, [2, 3], x_init_value=[a_value, b_value]
        )
    return {
        "test_compute_gradient": {
            "x": x_value,
            "theoretical": theoretical,
            "numeric": numeric,
            "error": error,
            "list_theoretical": [t for t, _ in pairs],
            "list_numeric": [n for _, n in pairs],
        }
    }


def device_cases(tf: Any) -> dict[str, dict[str, Any]]:
    return {
        "test_devices": {
            "gpu_device_name_without_gpu": tf.test.gpu_device_name(),
            "is_gpu_available_without_gpu": tf.test.is_gpu_available(),
        }
    }


# ---- programs in a process of their own --------------------------------------------------------
# Small TF1 programs that need a fresh process (flags parsed from sys.argv, tf.app.run, the
# first tf.logging call). `IMPORT_TF` is replaced by a one-line import of TensorFlow or
# tfcluster, so line numbers in log records agree.

TF_IMPORT = "import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()"
TFCLUSTER_IMPORT = "import tfcluster as tf"

_DEFINE_FLAGS = """
tf.flags.DEFINE_string("name", "default-name", "a string")
tf.app.flags.DEFINE_integer("count", 1, "how many")
tf.flags.DEFINE_float("rate", 0.25, "a rate")
tf.flags.DEFINE_boolean("debug", True, "a boolean")
tf.flags.DEFINE_bool("verbose", False, "another boolean")
tf.flags.DEFINE_enum("mode", "a", ["a", "b"], "an enum")
tf.flags.DEFINE_list("items", ["p"], "a list")
tf.flags.DEFINE_multi_string("tag", [], "repeated")
tf.flags.DEFINE_multi_integer("level", [1], "repeated ints")
FLAGS = tf.flags.FLAGS


def values():
    return {
        "name": FLAGS.name, "count": FLAGS.count, "rate": FLAGS.rate, "debug": FLAGS.debug,
        "verbose": FLAGS.verbose, "mode": FLAGS.mode, "items": FLAGS.items, "tag": FLAGS.tag,
        "level": FLAGS.level,
    }
"""

PROGRAMS = {
    # Reading a flag before anything parsed them parses sys.argv (TF's FLAGS, not absl's).
    "flags_implicit_parse": """import json, sys
IMPORT_TF
"""
    + _DEFINE_FLAGS
    + """
try:
    out = values()
    out["same_object"] = tf.app.flags.FLAGS is tf.flags.FLAGS
    out["is_parsed"] = FLAGS.is_parsed()
    out["getitem_value"] = FLAGS["count"].value
    out["contains"] = ["count" in FLAGS, "nope" in FLAGS]
except Exception as e:
    out = {"error": type(e).__name__}
print(json.dumps(out, sort_keys=True))
""",
    # tf.app.run: flags parsed leniently, main gets what is left, exits with main's value.
    "app_run": """import json, sys
IMPORT_TF
"""
    + _DEFINE_FLAGS
    + """

def main(argv):
    out = values()
    out["argv"] = argv[1:]
    out["verbosity_in_main"] = tf.logging.get_verbosity()
    print(json.dumps(out, sort_keys=True))
    return 3


if __name__ == "__main__":
    tf.app.run()
""",
    "app_run_explicit_main_and_argv": """import json, sys
IMPORT_TF
tf.flags.DEFINE_integer("count", 1, "how many")


def my_main(argv):
    print(json.dumps({"argv": argv[1:], "count": tf.flags.FLAGS.count}))


tf.app.run(main=my_main, argv=["prog", "--count=9", "rest"])
""",
    "flags_old_keyword_names": """import json
IMPORT_TF
tf.flags.DEFINE_string(flag_name="old", default_value="dflt", docstring="old-style names")
tf.flags.DEFINE_integer(flag_name="n", default_value=4, docstring="old-style names")
print(json.dumps({"old": tf.flags.FLAGS.old, "n": tf.flags.FLAGS.n}))
""",
    "logging_default": """import json, logging
IMPORT_TF
tf.logging.info("MARK info hidden")
tf.logging.warn("MARK warn %s", "shown")
tf.logging.warning("MARK warning")
print(json.dumps({
    "verbosity": tf.logging.get_verbosity(),
    "logger_name": tf.get_logger().name,
    "is_tensorflow_logger": tf.get_logger() is logging.getLogger("tensorflow"),
}))
""",
    "logging_levels": """import json
IMPORT_TF
tf.logging.set_verbosity(tf.logging.INFO)
v = tf.logging.get_verbosity()
tf.logging.debug("MARK debug hidden")
tf.logging.info("MARK info %d", 1)
tf.logging.warn("MARK warn")
tf.logging.error("MARK error")
tf.logging.fatal("MARK fatal does not exit")
tf.logging.log(tf.logging.INFO, "MARK log at info")
tf.logging.vlog(tf.logging.ERROR, "MARK vlog error")
tf.logging.vlog(5, "MARK vlog 5 hidden")
for i in range(7):
    tf.logging.log_every_n(tf.logging.INFO, "MARK every 3: %d", 3, i)
for i in range(5):
    tf.logging.log_first_n(tf.logging.WARN, "MARK first 2: %d", 2, i)
tf.logging.log_if(tf.logging.INFO, "MARK if true", True)
tf.logging.log_if(tf.logging.INFO, "MARK if false", False)
tf.logging.TaskLevelStatusMessage("MARK task status")
tf.logging.set_verbosity(tf.logging.ERROR)
tf.logging.warn("MARK warn hidden at ERROR")
print(json.dumps({"verbosity_after_info": v, "verbosity_now": tf.logging.get_verbosity()}))
""",
    # Under tf.app.run absl's handler formats records and its --verbosity sets the level.
    # The first tf.logging call sets up its handler (root has none yet), then absl adds its own
    # to the root logger: TF 1.15 logs such records twice, both ways.
    "logging_under_app_run": """import json
IMPORT_TF
tf.logging.get_verbosity()


def main(argv):
    tf.logging.info("MARK info in main")
    tf.logging.debug("MARK debug in main")
    print(json.dumps({"verbosity": tf.logging.get_verbosity()}))


tf.app.run(main)
""",
}

_FLAG_ARGS = [
    "--name=abc",
    "--count",
    "7",
    "--rate=0.5",
    "--nodebug",
    "--verbose",
    "--mode=b",
    "--items=x,y",
    "--tag=t1",
    "--tag=t2",
    "--level=3",
]

# case -> (program, command-line arguments)
PROGRAM_CASES: dict[str, tuple[str, list[str]]] = {
    "flags_defaults": ("flags_implicit_parse", []),
    "flags_parsed": ("flags_implicit_parse", _FLAG_ARGS),
    "flags_bool_forms": ("flags_implicit_parse", ["--debug=false", "--verbose=true"]),
    "flags_unknown_flag": ("flags_implicit_parse", ["--no_such_flag=1"]),
    "flags_bad_integer": ("flags_implicit_parse", ["--count=seven"]),
    "flags_bad_enum": ("flags_implicit_parse", ["--mode=c"]),
    "app_run": ("app_run", ["--count=2", "extra", "--undefined_flag=1", "pos2", "--tag=z"]),
    "app_run_bad_value": ("app_run", ["--count=notanint"]),
    "app_run_bad_enum": ("app_run", ["--mode=zzz"]),
    "app_run_helpfull": ("app_run", ["--helpfull"]),
    "app_run_help": ("app_run", ["--help"]),
    "app_run_explicit_main_and_argv": ("app_run_explicit_main_and_argv", ["--ignored"]),
    "flags_old_keyword_names": ("flags_old_keyword_names", []),
    "logging_default": ("logging_default", []),
    "logging_levels": ("logging_levels", []),
    "logging_under_app_run": ("logging_under_app_run", []),
    "logging_under_app_run_verbosity_flag": ("logging_under_app_run", ["--verbosity=1"]),
}

_ABSL_PREFIX = re.compile(r"^([DIWEF])\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ (\S+:\d+)\] ")


def tf_lines(stderr: str) -> list[str]:
    """The lines of a program's stderr that the comparison is about (its MARK log records,
    flag errors, the exception it died of), with absl's time and thread id taken out."""
    keep = []
    for line in stderr.splitlines():
        line = _ABSL_PREFIX.sub(r"\1 \2] ", line)
        if "MARK" in line or "Flags parsing error" in line or "--helpshort" in line:
            keep.append(line)
        elif re.match(r"^[\w.]+(Error|Exception): ", line):
            keep.append(line.split(":", 1)[0].rsplit(".", 1)[-1])
    return keep


def run_program(tf_import: str, name: str, args: list[str]) -> dict[str, Any]:
    """Runs PROGRAMS[name] with `tf_import` as its import line: its exit
    code, stdout and the stderr lines the comparison is about."""
    done = run_script(PROGRAMS[name].replace("IMPORT_TF", tf_import), name, args)
    return {"rc": done.returncode, "stdout": done.stdout, "stderr": tf_lines(done.stderr)}
