"""Records TF 1.15 on tf.data pipelines with sparse elements, and on the SavedModels of them
both ways (TF 1.15 only):

    cd tests/tf_reference && /tmp/tf115/bin/python record_sparse_dataset_interop.py

- `tf/<case>`: each pipeline of sparse_dataset_interop_cases.py built by TF 1.15: its outputs'
  values for a few steps, its dataset/iterator/sparse boxing op types and the dtypes
  IteratorGetNext hands out (also for RUN_CASES: a file cache). Its SavedModel is written
  to data/sparse_dataset_interop/tf/<case>/.
- `tfcluster_saved_model/<case>`: the SavedModel tfcluster wrote for the case
  (data/sparse_dataset_interop/tfcluster/, by `PYTHONPATH=server python
  tests/tf_reference/write_sparse_dataset_interop_samples.py`) loaded by TF 1.15 and run; the
  error where TF cannot.

tests/unit/test_sparse_dataset_interop.py compares tfcluster with both.
"""

import os
import shutil

import tensorflow as tf
from case_tools import error
from recorder import DATA_DIR, Recorder
from sparse_dataset_interop_cases import (
    CASES,
    RUN_CASES,
    built_and_run,
    load_and_run,
    save_model,
)

if not tf.__version__.startswith("1.15"):
    raise SystemExit("record_sparse_dataset_interop.py records TensorFlow 1.15")

TF_DIR = os.path.join(DATA_DIR, "sparse_dataset_interop", "tf")
OURS_DIR = os.path.join(DATA_DIR, "sparse_dataset_interop", "tfcluster")


def main():
    rec = Recorder("sparse_dataset_interop")
    for name in sorted(RUN_CASES):
        rec.add("tf/" + name, **built_and_run(tf, name))
    for name in sorted(CASES):
        rec.add("tf/" + name, **built_and_run(tf, name))
        path = os.path.join(TF_DIR, name)
        shutil.rmtree(path, ignore_errors=True)
        save_model(tf, name, path)
        ours = os.path.join(OURS_DIR, name)
        if os.path.isdir(ours):
            result = {}

            def load(ours=ours, result=result):
                result["values"] = load_and_run(tf, ours)

            failure = error(load)
            rec.add("tfcluster_saved_model/" + name, **(failure or result))
    print(rec.save())


if __name__ == "__main__":
    main()
