"""tf.keras.utils.get_file's archive extraction on Pythons without tarfile's extraction filters
(3.11.0-3.11.3: Debian 12's python3 is 3.11.2): archives still extract, and a member that would
land outside the target directory is refused, as the "data" filter refuses it."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from typing import Any

import pytest
from tfcluster.lib.keras import utils


def _tar(path: Path, members: dict[str, bytes]) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


@pytest.fixture
def stdlib_without_filters(monkeypatch: pytest.MonkeyPatch) -> None:
    """tarfile as Python 3.11.2 has it: no data_filter, extractall without `filter`."""
    plain = tarfile.TarFile.extractall

    def extractall(
        self: Any, path: str = ".", members: Any = None, *, numeric_owner: bool = False
    ) -> None:
        plain(self, path, members, numeric_owner=numeric_owner)

    monkeypatch.delattr(tarfile, "data_filter", raising=False)
    monkeypatch.setattr(tarfile.TarFile, "extractall", extractall)


def test_archive_extracts_without_extraction_filters(
    tmp_path: Path, stdlib_without_filters: None
) -> None:
    archive = tmp_path / "d.tar.gz"
    _tar(archive, {"d/a.txt": b"alpha", "d/sub/b.txt": b"beta"})
    out = tmp_path / "out"
    out.mkdir()
    assert utils._extract_archive(str(archive), str(out), "tar")
    assert (out / "d" / "a.txt").read_bytes() == b"alpha"
    assert (out / "d" / "sub" / "b.txt").read_bytes() == b"beta"


@pytest.mark.parametrize("name", ["../escaped.txt", "/tmp/absolute-escape.txt", "d/../../up.txt"])
def test_member_outside_the_target_is_refused_without_extraction_filters(
    tmp_path: Path, stdlib_without_filters: None, name: str
) -> None:
    archive = tmp_path / "bad.tar.gz"
    _tar(archive, {"d/ok.txt": b"ok", name: b"payload"})
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(ValueError, match="outside"):
        utils._extract_archive(str(archive), str(out), "tar")
    assert not (tmp_path / "escaped.txt").exists()
    assert not (out / "d" / "ok.txt").exists()  # checked before anything is written


def test_member_outside_the_target_is_refused_with_extraction_filters(tmp_path: Path) -> None:
    if not hasattr(tarfile, "data_filter"):
        pytest.skip("this Python's tarfile has no extraction filters")
    archive = tmp_path / "bad.tar.gz"
    _tar(archive, {"../escaped.txt": b"payload"})
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(tarfile.FilterError):
        utils._extract_archive(str(archive), str(out), "tar")
    assert not (tmp_path / "escaped.txt").exists()
