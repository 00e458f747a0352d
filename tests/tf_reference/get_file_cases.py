"""tf.keras.utils.get_file when a download fails or a downloaded file's hash differs: what it
raises, prints and leaves in the cache. Each case is `fn(get_file, cache, served) -> dict`
over a fresh cache folder and a folder of served files (file:// origins), run on TF 1.15 by
record_get_file.py and on tfcluster by tests/unit/test_get_file_failures.py. Paths in messages
are written as <cache> and <served>. Python 3.7 code."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os

PAYLOAD = b"0123456789" * 50


def _run(get_file, cache, served, **kwargs):
    out = io.StringIO()
    result = {}
    with contextlib.redirect_stdout(out):
        try:
            path = get_file(cache_dir=cache, **kwargs)
            result["path"] = os.path.relpath(path, cache)
        except Exception as e:  # the class and message are what is compared
            result["error"] = type(e).__name__
            result["message"] = str(e)
    result["stdout"] = out.getvalue()
    result["cache"] = sorted(os.listdir(os.path.join(cache, "datasets")))
    for key in ("message", "stdout"):
        if key in result:
            result[key] = result[key].replace(cache, "<cache>").replace(served, "<served>")
    return result


def missing_origin(get_file, cache, served):
    origin = "file://" + os.path.join(served, "absent.bin")
    return _run(get_file, cache, served, fname="absent.bin", origin=origin)


def stale_cache_and_missing_origin(get_file, cache, served):
    os.makedirs(os.path.join(cache, "datasets"), exist_ok=True)
    with open(os.path.join(cache, "datasets", "data.bin"), "wb") as f:
        f.write(b"stale")
    origin = "file://" + os.path.join(served, "absent.bin")
    return _run(get_file, cache, served, fname="data.bin", origin=origin, file_hash="0" * 64)


def downloaded_file_with_another_hash(get_file, cache, served):
    with open(os.path.join(served, "data.bin"), "wb") as f:
        f.write(PAYLOAD)
    origin = "file://" + os.path.join(served, "data.bin")
    return _run(get_file, cache, served, fname="data.bin", origin=origin, file_hash="0" * 32)


def stale_cache_md5_hash_and_missing_origin(get_file, cache, served):
    os.makedirs(os.path.join(cache, "datasets"), exist_ok=True)
    with open(os.path.join(cache, "datasets", "data.bin"), "wb") as f:
        f.write(b"stale")
    origin = "file://" + os.path.join(served, "absent.bin")
    return _run(get_file, cache, served, fname="data.bin", origin=origin, md5_hash="0" * 32)


def cached_file_with_its_hash(get_file, cache, served):
    os.makedirs(os.path.join(cache, "datasets"), exist_ok=True)
    with open(os.path.join(cache, "datasets", "data.bin"), "wb") as f:
        f.write(PAYLOAD)
    origin = "file://" + os.path.join(served, "absent.bin")
    sha256 = hashlib.sha256(PAYLOAD).hexdigest()
    md5 = hashlib.md5(PAYLOAD).hexdigest()
    first = _run(get_file, cache, served, fname="data.bin", origin=origin, file_hash=sha256)
    second = _run(get_file, cache, served, fname="data.bin", origin=origin, md5_hash=md5)
    return {"sha256": first, "md5": second}


CASES = {
    "missing_origin": missing_origin,
    "stale_cache_and_missing_origin": stale_cache_and_missing_origin,
    "downloaded_file_with_another_hash": downloaded_file_with_another_hash,
    "stale_cache_md5_hash_and_missing_origin": stale_cache_md5_hash_and_missing_origin,
    "cached_file_with_its_hash": cached_file_with_its_hash,
}
