"""Records what TensorFlow 1.15's tf.keras.datasets loaders return for the small files of
keras_datasets_cases.py, and which name, origin, hash and cache folder each asks get_file for.

TF's loaders check each file's hash against the real dataset's, so the recorder wraps the
get_file each loader module calls: it notes the arguments, then lets TF's own get_file fetch
the local file (file:// origin, no hash) into a temporary cache. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_datasets.py
"""

from __future__ import annotations

import importlib
import os
import tempfile

import tensorflow as tf
from keras_datasets_cases import CASES, describe, write_files
from recorder import Recorder
from tensorflow.python.keras.utils import data_utils

if not tf.__version__.startswith("1."):
    raise SystemExit("record_keras_datasets.py needs TensorFlow 1.15 (2.x's tf.keras is Keras 3)")

rec = Recorder("keras_datasets")
with tempfile.TemporaryDirectory() as served, tempfile.TemporaryDirectory() as cache:
    write_files(served)
    for case, (module_name, function, kwargs) in sorted(CASES.items()):
        module = importlib.import_module("tensorflow.python.keras.datasets." + module_name)
        calls = []

        def local_get_file(
            fname,
            origin,
            untar=False,
            file_hash=None,
            cache_subdir="datasets",
            calls=calls,
            case=case,
            **kw,
        ):
            calls.append([fname, origin, file_hash, cache_subdir, untar])
            local = os.path.join(served, os.path.basename(origin))
            # TF falls back to /tmp/.keras when the cache folder does not exist yet.
            case_cache = os.path.join(cache, case)
            os.makedirs(case_cache, exist_ok=True)
            return data_utils.get_file(
                fname,
                origin="file://" + local,
                untar=untar,
                cache_subdir=cache_subdir,
                cache_dir=case_cache,
            )

        module.get_file = local_get_file
        try:
            result = describe(getattr(module, function)(**kwargs))
        except Exception as e:  # the error class is what is compared
            rec.add(case, error=e, get_file=calls)
            continue
        rec.add(case, result=result, get_file=calls)
rec.save()
