"""tf.keras.utils: to_categorical, normalize, get_file and the Progbar."""

from __future__ import annotations

import hashlib
import os
import urllib.error
import urllib.request
from typing import Any

import numpy as np

from tfcluster.lib.keras.utils.generic_utils import Progbar


def to_categorical(y: Any, num_classes: int | None = None, dtype: str = "float32") -> np.ndarray:
    y = np.array(y, dtype="int")
    input_shape = y.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    y = y.ravel()
    if not num_classes:
        num_classes = int(np.max(y)) + 1
    n = y.shape[0]
    categorical = np.zeros((n, num_classes), dtype=dtype)
    categorical[np.arange(n), y] = 1
    return np.reshape(categorical, (*input_shape, num_classes))


def normalize(x: Any, axis: int = -1, order: int = 2) -> np.ndarray:
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return np.asarray(x) / np.expand_dims(norm, axis)


def get_file(
    fname: str,
    origin: str,
    untar: bool = False,
    md5_hash: str | None = None,
    file_hash: str | None = None,
    cache_subdir: str = "datasets",
    hash_algorithm: str = "auto",
    extract: bool = False,
    archive_format: str = "auto",
    cache_dir: str | None = None,
) -> str:
    """The cached file ~/.keras/<cache_subdir>/<fname>, fetched from origin (a file:// or
    http(s) URL) when absent or when its hash differs; `untar`/`extract` unpack archives
    beside it (TF 1.15's get_file)."""
    cache_dir = cache_dir or os.path.join(os.path.expanduser("~"), ".keras")
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    directory = os.path.join(cache_dir, cache_subdir)
    os.makedirs(directory, exist_ok=True)
    if untar:
        untar_path = os.path.join(directory, fname)
        path = untar_path + ".tar.gz"
    else:
        path = os.path.join(directory, fname)
    download = not os.path.exists(path)
    if not download and file_hash is not None and not _hash_ok(path, file_hash, hash_algorithm):
        print(
            "A local file was found, but it seems to be incomplete or outdated because the "
            f"{hash_algorithm} file hash does not match the original value of {file_hash} so we "
            "will re-download the data."
        )
        download = True
    if download:
        print("Downloading data from", origin)
        _download(origin, path)
    if untar:
        if not os.path.exists(untar_path):
            _extract_archive(path, directory, "tar")
        return untar_path
    if extract:
        _extract_archive(path, directory, archive_format)
    return path


def _download(origin: str, path: str) -> None:
    """TF 1.15's download: a Progbar fed by urlretrieve; a failed fetch raises a plain
    Exception saying why and leaves no file at `path` (a stale cached one included). The file
    fetched is not checked against the hash again, as TF does not."""
    progbar: list[Progbar] = []

    def progress(count: int, block_size: int, total_size: int) -> None:
        if not progbar:
            progbar.append(Progbar(None if total_size == -1 else total_size))
        else:
            progbar[0].update(count * block_size)

    message = "URL fetch failure on {}: {} -- {}"
    try:
        try:
            urllib.request.urlretrieve(origin, path, progress)
        except urllib.error.HTTPError as e:
            raise Exception(message.format(origin, e.code, e.msg)) from e
        except urllib.error.URLError as e:
            raise Exception(message.format(origin, e.errno, e.reason)) from e
    except BaseException:
        if os.path.exists(path):
            os.remove(path)
        raise


def _hash_ok(path: str, wanted: str, algorithm: str) -> bool:
    if algorithm == "sha256" or (algorithm == "auto" and len(wanted) == 64):
        hasher: Any = hashlib.sha256()
    else:
        hasher = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(65535), b""):
            hasher.update(chunk)
    return str(hasher.hexdigest()) == str(wanted)


def _extract_tar(archive: Any, target: str) -> None:
    """Extracts archive into target, refusing members that would land outside it: with the
    standard library's "data" filter where it has one (Python 3.11.4+, 3.12), else checked here
    (Python 3.11.0-3.11.3 have no extraction filters)."""
    import tarfile

    if hasattr(tarfile, "data_filter"):
        archive.extractall(target, filter="data")
        return
    root = os.path.realpath(target)

    def inside(name: str) -> bool:
        return os.path.commonpath([root, os.path.realpath(os.path.join(root, name))]) == root

    for member in archive.getmembers():
        link_ok = not (member.issym() or member.islnk()) or inside(
            os.path.join(os.path.dirname(member.name), member.linkname)
            if member.issym()
            else member.linkname
        )
        if os.path.isabs(member.name) or not inside(member.name) or not link_ok:
            raise ValueError(
                f"refusing to extract {member.name!r} from {archive.name}: it would be "
                f"written outside {target}"
            )
        if member.isdev():
            raise ValueError(f"refusing to extract device file {member.name!r}")
    archive.extractall(target)


def _extract_archive(path: str, target: str, archive_format: Any = "auto") -> bool:
    import tarfile
    import zipfile

    if archive_format is None:
        return False
    formats = ["tar", "zip"] if archive_format == "auto" else [archive_format]
    formats = [formats] if isinstance(formats, str) else formats
    for kind in formats:
        if kind == "tar" and tarfile.is_tarfile(path):
            with tarfile.open(path) as archive:
                _extract_tar(archive, target)
            return True
        if kind == "zip" and zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                archive.extractall(target)
            return True
    return False


__all__ = ["Progbar", "get_file", "normalize", "to_categorical"]
