"""tensorflow.python.lib.io.file_io's module functions on a fresh folder: what they return
(types included), leave on disk and raise. Each case is `fn(file_io, root) -> dict`, run on
TF 1.15 by record_file_io.py and on tfcluster by tests/unit/test_file_io_module.py. Paths in
results and messages are written relative to <root>. Python 3.7 code."""

from __future__ import annotations

import os


def _rel(root, value):
    if isinstance(value, str):
        return value.replace(root, "<root>")
    if isinstance(value, (list, tuple)):
        return [_rel(root, v) for v in value]
    return value


def _error(root, fn):
    try:
        fn()
    except Exception as e:  # the class and message are what is compared
        return {"error": type(e).__name__, "message": _rel(root, str(e))}
    return {"error": None}


def _tree(root):
    return sorted(
        os.path.relpath(os.path.join(d, n), root) for d, ds, fs in os.walk(root) for n in ds + fs
    )


def write_and_read_text_and_bytes(file_io, root):
    path = os.path.join(root, "a.txt")
    file_io.write_string_to_file(path, "h\u00e9llo\nworld\n")
    text = file_io.read_file_to_string(path)
    data = file_io.read_file_to_string(path, binary_mode=True)
    return {
        "text": text,
        "text_type": type(text).__name__,
        "bytes": list(data),
        "bytes_type": type(data).__name__,
        "tree": _tree(root),
    }


def matching_files_of_a_pattern_and_of_a_list(file_io, root):
    for name in ("x1.csv", "x2.csv", "y1.csv", "x3.txt"):
        file_io.write_string_to_file(os.path.join(root, name), name)
    one = file_io.get_matching_files(os.path.join(root, "x*.csv"))
    many = file_io.get_matching_files([os.path.join(root, "y*.csv"), os.path.join(root, "*.txt")])
    none = file_io.get_matching_files(os.path.join(root, "z*"))
    return {
        "one": sorted(_rel(root, one)),
        "one_types": sorted({type(p).__name__ for p in one}),
        "many": _rel(root, many),
        "none": none,
    }


def exists_and_is_directory(file_io, root):
    path = os.path.join(root, "f")
    file_io.write_string_to_file(path, b"\x00\x01")
    return {
        "file": [file_io.file_exists(path), file_io.is_directory(path)],
        "dir": [file_io.file_exists(root), file_io.is_directory(root)],
        "absent": [file_io.file_exists(path + "x"), file_io.is_directory(path + "x")],
        "size": file_io.stat(path).length,
        "stat_is_dir": file_io.stat(root).is_directory,
    }


def create_list_walk_and_delete_directories(file_io, root):
    file_io.recursive_create_dir(os.path.join(root, "a", "b", "c"))
    file_io.create_dir(os.path.join(root, "d"))
    file_io.write_string_to_file(os.path.join(root, "a", "b", "f.txt"), "x")
    listing = sorted(file_io.list_directory(os.path.join(root, "a", "b")))
    walked = [[_rel(root, d), sorted(ds), sorted(fs)] for d, ds, fs in file_io.walk(root)]
    post = [_rel(root, d) for d, _, _ in file_io.walk(root, in_order=False)]
    file_io.delete_recursively(os.path.join(root, "a"))
    return {
        "listing": listing,
        "walk": sorted(walked),
        "post_order_last": post[-1],
        "tree": _tree(root),
    }


def create_dir_that_exists(file_io, root):
    return _error(root, lambda: file_io.create_dir(root))


def read_missing_file(file_io, root):
    return _error(root, lambda: file_io.read_file_to_string(os.path.join(root, "nope")))


def delete_missing_file(file_io, root):
    return _error(root, lambda: file_io.delete_file(os.path.join(root, "nope")))


def list_missing_directory(file_io, root):
    return _error(root, lambda: file_io.list_directory(os.path.join(root, "nope")))


def copy_and_rename_onto_an_existing_file(file_io, root):
    a, b = os.path.join(root, "a"), os.path.join(root, "b")
    file_io.write_string_to_file(a, "A")
    file_io.write_string_to_file(b, "B")
    copy_err = _error(root, lambda: file_io.copy(a, b))
    rename_err = _error(root, lambda: file_io.rename(a, b))
    file_io.copy(a, os.path.join(root, "c"))
    file_io.rename(a, b, overwrite=True)
    return {
        "copy": copy_err,
        "rename": rename_err,
        "b": file_io.read_file_to_string(b),
        "tree": _tree(root),
    }


def atomic_write_replaces_and_leaves_no_temporary(file_io, root):
    path = os.path.join(root, "model.txt")
    file_io.atomic_write_string_to_file(path, "one")
    file_io.atomic_write_string_to_file(path, "two")
    refused = _error(root, lambda: file_io.atomic_write_string_to_file(path, "3", overwrite=False))
    return {"content": file_io.read_file_to_string(path), "refused": refused, "tree": _tree(root)}


def file_io_class_writes_then_reads(file_io, root):
    path = os.path.join(root, "f.txt")
    with file_io.FileIO(path, "w") as f:
        f.write("line1\nline2\n")
    with file_io.FileIO(path, "r") as f:
        lines = f.readlines()
    return {"lines": lines, "size": file_io.stat(path).length}


def matching_files_under_missing_directories_spelled_with_repeated_slashes(file_io, root):
    """The missing directory a pattern's fixed part names, in the error as the pattern spells
    it (TF's Dirname keeps repeated slashes, and one before the file part)."""
    os.makedirs(os.path.join(root, "a"))
    patterns = {
        "double_in_missing": root + "/nope//deeper/m.index",
        "double_before_file": root + "/nope/deeper//m*",
        "double_after_existing": root + "/a//missing/x",
        "after_root": root + "//nope/m",
    }
    return {
        key: _error(root, lambda p=p: file_io.get_matching_files(p))
        for key, p in sorted(patterns.items())
    }


CASES = {
    fn.__name__: fn
    for fn in (
        write_and_read_text_and_bytes,
        matching_files_of_a_pattern_and_of_a_list,
        exists_and_is_directory,
        create_list_walk_and_delete_directories,
        create_dir_that_exists,
        read_missing_file,
        delete_missing_file,
        list_missing_directory,
        copy_and_rename_onto_an_existing_file,
        atomic_write_replaces_and_leaves_no_temporary,
        file_io_class_writes_then_reads,
        matching_files_under_missing_directories_spelled_with_repeated_slashes,
    )
}
