"""The files tf.keras.applications downloads (ImageNet weights, the class index), found in
Keras's cache ~/.keras/models/ under the names Keras gives them.

A file already in the cache is used as it is (TF 1.15 would download it again when its hash
differs), so weights put there by hand work without a network. A missing file is fetched as
Keras fetches it; where that fails (no network), the error says which file to put where.
"""

from __future__ import annotations

import os

from tfcluster.lib.keras.utils import get_file


def models_dir() -> str:
    return os.path.join(os.path.expanduser("~"), ".keras", "models")


def cached_or_fetched(fname: str, origin: str, file_hash: str | None = None) -> str:
    """The path of `fname` in Keras's models cache, fetched from `origin` when absent."""
    cached = os.path.join(models_dir(), fname)
    if os.path.exists(cached):
        return cached
    try:
        return get_file(fname, origin, cache_subdir="models", file_hash=file_hash)
    except Exception as e:
        # TF raises a plain Exception here too ("URL fetch failure on ..."): same class,
        # and the way to work offline.
        raise Exception(
            f"{e}. tf.keras.applications needs the file {fname}: download it from {origin} "
            f"and put it at {cached} (Keras's cache), or pass weights=None or the path of a "
            "weights file."
        ) from e
