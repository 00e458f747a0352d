"""tf.gfile and tf.io.gfile against TensorFlow: the same scenarios on the same temporary tree
give the same results, error classes and messages (tests/tf_reference/scaffolding_cases.py,
recorded by record_scaffolding.py); non-local file systems are refused by name."""

from __future__ import annotations

import os
import pathlib
from typing import Any

import pytest
import tfcluster as tf
from tf_reference import reference, scaffolding_cases
from tf_reference.codec import decode, encode

# Where tfcluster knowingly differs from the TensorFlow the values were recorded with.
KNOWN_DIFFERENCES = {
    # TF calls onerror, then fails on its own unbound local variable (1.15 and 2.x alike);
    # tfcluster returns after onerror, as the argument's documentation says.
    ("gfile_queries", "io_walk_onerror"): ["ok", []],
    # Recorded from TF 2.x, which globs a missing directory or a file's children to [];
    # TF 1.15 (checked) fails with the directory it could not list.
    ("gfile_glob_special", "missing_directory"): [
        "error",
        "NotFoundError",
        "<root>/missing; No such file or directory",
    ],
    ("gfile_glob_special", "missing_directory_exact"): [
        "error",
        "NotFoundError",
        "<root>/missing; No such file or directory",
    ],
    ("gfile_glob_special", "under_file"): [
        "error",
        "FailedPreconditionError",
        "<root>/a.txt; Not a directory",
    ],
}


def as_recorded(value: Any) -> Any:
    """A value as it reads back from a recording (tuples become lists, arrays tagged)."""
    return decode(encode(value))


@pytest.fixture(scope="module")
def gfile_results() -> dict[str, dict[str, Any]]:
    return scaffolding_cases.gfile_cases(tf)


@pytest.mark.parametrize(
    "case",
    [
        "gfile_queries",
        "gfile_glob",
        "gfile_glob_special",
        "gfile_directories",
        "gfile_changes",
        "gfile_reads",
        "gfile_writes",
        "gfile_schemes",
    ],
)
def test_gfile_scenario_matches_tensorflow(
    case: str, gfile_results: dict[str, dict[str, Any]]
) -> None:
    recorded = reference.case("scaffolding", case)
    ours = as_recorded(gfile_results[case])
    assert set(ours) == set(recorded)
    for name, expected in recorded.items():
        expected = KNOWN_DIFFERENCES.get((case, name), expected)
        assert ours[name] == expected, f"{case}.{name}: {ours[name]!r} != TF's {expected!r}"


@pytest.mark.parametrize("scheme", ["gs", "hdfs", "s3", "ram"])
def test_a_non_local_file_system_is_unimplemented_naming_its_scheme(
    scheme: str, tmp_path: pathlib.Path
) -> None:
    path = f"{scheme}://bucket/dir/file.txt"
    uses = [
        lambda: tf.gfile.Exists(path),
        lambda: tf.gfile.GFile(path).read(),
        lambda: tf.gfile.GFile(path, "w").write("x"),
        lambda: tf.gfile.Glob(f"{scheme}://bucket/*"),
        lambda: tf.gfile.MakeDirs(path),
        lambda: tf.gfile.ListDirectory(path),
        lambda: tf.gfile.IsDirectory(path),
        lambda: tf.gfile.Copy(str(tmp_path / "missing"), path),
        lambda: tf.io.gfile.stat(path),
    ]
    for use in uses:
        with pytest.raises(tf.errors.UnimplementedError, match=f"scheme '{scheme}'"):
            use()


def test_a_relative_path_with_a_colon_is_local(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    tf.gfile.MakeDirs("a/b://c")
    assert tf.gfile.IsDirectory("a/b://c")
    assert tf.gfile.Glob("a/*") == ["a/b:"]


def test_gfile_writes_and_reads_large_binary_data_in_chunks(tmp_path: pathlib.Path) -> None:
    data = os.urandom(3 << 20)
    path = str(tmp_path / "big.bin")
    with tf.gfile.GFile(path, "wb") as f:
        for start in range(0, len(data), 1 << 20):
            f.write(data[start : start + (1 << 20)])
    with tf.gfile.GFile(path, "rb") as f:
        assert f.size() == len(data)
        assert f.read(10) == data[:10]
        assert f.read() == data[10:]


def test_stat_gives_the_file_statistics_fields(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "f.txt"
    path.write_bytes(b"12345")
    st = tf.io.gfile.stat(str(path))
    assert (st.length, st.is_directory) == (5, False)
    assert st.mtime_nsec == int(path.stat().st_mtime) * 1_000_000_000


def test_walk_top_down_lists_a_directory_before_its_subdirectories(
    tmp_path: pathlib.Path,
) -> None:
    (tmp_path / "x" / "y").mkdir(parents=True)
    (tmp_path / "x" / "y" / "f").write_text("f")
    top_down = [d for d, _, _ in tf.io.gfile.walk(str(tmp_path))]
    bottom_up = [d for d, _, _ in tf.io.gfile.walk(str(tmp_path), topdown=False)]
    assert top_down == [str(tmp_path), str(tmp_path / "x"), str(tmp_path / "x" / "y")]
    assert bottom_up == list(reversed(top_down))
    errors: list[Exception] = []
    assert list(tf.io.gfile.walk(str(tmp_path / "nope"), onerror=errors.append)) == []
    assert [type(e) for e in errors] == [tf.errors.NotFoundError]
