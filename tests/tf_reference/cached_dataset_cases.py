"""A tf.keras.datasets loader that finds its file already cached in ~/.keras/datasets but with
another hash than the real dataset's, while the network is unreachable: TF 1.15 says so, tries
to download it again, fails with a plain Exception and leaves the cache empty. The unreachable
network is the same on both sides: urlretrieve raising what it raises when the host name does
not resolve (what TF 1.15 gave on a machine without network). Run on TF 1.15 by
record_cached_dataset_hash.py and on tfcluster by tests/unit/test_cached_dataset_hash.py.
Python 3.7 code."""

from __future__ import annotations

import contextlib
import io
import os
import socket
import urllib.error

import numpy as np


def offline_urlretrieve(url, filename=None, reporthook=None, data=None):
    raise urllib.error.URLError(socket.gaierror(-2, "Name or service not known"))


def _stale_mnist(path):
    rng = np.random.RandomState(3)
    np.savez(
        path,
        x_train=rng.randint(0, 255, (4, 28, 28)).astype("uint8"),
        y_train=rng.randint(0, 10, 4).astype("uint8"),
        x_test=rng.randint(0, 255, (2, 28, 28)).astype("uint8"),
        y_test=rng.randint(0, 10, 2).astype("uint8"),
    )


def _stale_word_index(path):
    with open(path, "w") as f:
        f.write('{"the": 1, "and": 2}')


# case -> (cached file name, its writer, dataset module, function)
CASES = {
    "mnist_npz": ("mnist.npz", _stale_mnist, "mnist", "load_data"),
    "imdb_word_index_json": ("imdb_word_index.json", _stale_word_index, "imdb", "get_word_index"),
}


def run(case, datasets, home):
    """Writes the case's stale file under home/.keras/datasets, calls the loader (with HOME
    pointing at home) and returns what it printed and raised and what is left cached."""
    fname, write, module, function = CASES[case]
    cache = os.path.join(home, ".keras", "datasets")
    os.makedirs(cache, exist_ok=True)
    write(os.path.join(cache, fname))
    out = io.StringIO()
    result = {}
    old_home = os.environ.get("HOME")
    os.environ["HOME"] = home
    try:
        with contextlib.redirect_stdout(out):
            try:
                getattr(getattr(datasets, module), function)()
                result["error"] = None
            except Exception as e:  # the class and message are what is compared
                result["error"] = type(e).__name__
                result["message"] = str(e)
    finally:
        if old_home is None:
            del os.environ["HOME"]
        else:
            os.environ["HOME"] = old_home
    result["stdout"] = out.getvalue()
    result["cache"] = sorted(os.listdir(cache))
    return result
