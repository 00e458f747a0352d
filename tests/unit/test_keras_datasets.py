"""tf.keras.datasets loaders give what TF 1.15's give for the same files (recorded by
tests/tf_reference/record_keras_datasets.py), fetching them through get_file over HTTP from a
loopback server into a temporary ~/.keras/datasets, with TF's file names, cache folders,
origins and hashes."""

from __future__ import annotations

import functools
import http.server
import importlib
import os
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.keras_datasets_cases import CASES, FILES, describe, file_sha256, write_files


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(folder of the dataset files, the loopback URL serving it)."""
    folder = str(tmp_path_factory.mktemp("served"))
    write_files(folder)
    handler = functools.partial(_QuietHandler, directory=folder)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield folder, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def _point_at_server(monkeypatch: pytest.MonkeyPatch, module: Any, folder: str, url: str) -> None:
    """TF's origins and hashes stay checked by the test below; here they name the served
    small files instead of the real datasets."""
    if hasattr(module, "_ORIGIN_FOLDER"):
        monkeypatch.setattr(module, "_ORIGIN_FOLDER", url)
    if hasattr(module, "_ORIGIN"):
        monkeypatch.setattr(module, "_ORIGIN", url + os.path.basename(module._ORIGIN))
        monkeypatch.setattr(
            module,
            "_FILE_HASH",
            file_sha256(os.path.join(folder, os.path.basename(module._ORIGIN))),
        )
    if hasattr(module, "_FILE_HASHES"):
        hashes = {name: file_sha256(os.path.join(folder, name)) for name in module._FILE_HASHES}
        monkeypatch.setattr(module, "_FILE_HASHES", hashes)


@pytest.mark.parametrize("case", sorted(CASES))
def test_loader_returns_what_tf_returns(
    case: str,
    served: tuple[str, str],
    tmp_path: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder, url = served
    module_name, function, kwargs = CASES[case]
    monkeypatch.setenv("HOME", str(tmp_path))
    module = importlib.import_module(f"tfcluster.lib.keras.datasets.{module_name}")
    _point_at_server(monkeypatch, module, folder, url)
    recorded = reference.case("keras_datasets", case)
    loader = getattr(getattr(tf.keras.datasets, module_name), function)
    if "error" in recorded:
        with pytest.raises(Exception) as raised:
            loader(**kwargs)
        assert type(raised.value).__name__ == reference.error_class(recorded["error"])
        return
    got = describe(loader(**kwargs))
    assert got == recorded["result"]
    # Each fetched file sits where TF caches it: ~/.keras/<cache_subdir>/<fname>.
    for fname, _origin, _hash, subdir, untar in recorded["get_file"]:
        cached = os.path.join(str(tmp_path), ".keras", subdir, fname)
        assert os.path.exists(cached + (".tar.gz" if untar else ""))
        assert os.path.exists(cached)


@pytest.mark.parametrize("case", sorted(CASES))
def test_loader_asks_get_file_for_tf_origins_and_hashes(case: str) -> None:
    module_name, _function, _kwargs = CASES[case]
    module = importlib.import_module(f"tfcluster.lib.keras.datasets.{module_name}")
    for _fname, origin, file_hash, _subdir, _untar in reference.case("keras_datasets", case)[
        "get_file"
    ]:
        served_name = os.path.basename(origin)
        assert FILES[served_name] == module_name
        if hasattr(module, "_ORIGIN"):
            assert (origin, file_hash) == (module._ORIGIN, module._FILE_HASH)
        elif hasattr(module, "_FILE_HASHES"):
            assert module._ORIGIN_FOLDER + served_name == origin
            assert module._FILE_HASHES[served_name] == file_hash
        else:
            assert module._ORIGIN_FOLDER + served_name == origin and file_hash is None


def test_a_cached_file_with_a_wrong_hash_is_fetched_again(
    served: tuple[str, str], tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, url = served
    monkeypatch.setenv("HOME", str(tmp_path))
    from tfcluster.lib.keras.datasets import boston_housing

    _point_at_server(monkeypatch, boston_housing, folder, url)
    cache = tmp_path / ".keras" / "datasets"
    cache.mkdir(parents=True)
    (cache / "boston_housing.npz").write_bytes(b"truncated")
    (x_train, _), (x_test, _) = tf.keras.datasets.boston_housing.load_data()
    assert (len(x_train), len(x_test)) == (24, 7)
