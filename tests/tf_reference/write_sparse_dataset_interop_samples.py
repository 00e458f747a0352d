"""Writes the SavedModels tfcluster exports for sparse_dataset_interop_cases.py (run with
tfcluster's Python, then run record_sparse_dataset_interop.py under TF 1.15 again):

    PYTHONPATH=server python tests/tf_reference/write_sparse_dataset_interop_samples.py

into data/sparse_dataset_interop/tfcluster/<case>/; the recorder loads them into TF 1.15 and
records what TF computes.
"""

from __future__ import annotations

import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tfcluster as tf  # noqa: E402
from sparse_dataset_interop_cases import CASES, save_model  # noqa: E402

OUT = os.path.join(HERE, "data", "sparse_dataset_interop", "tfcluster")


def main() -> None:
    for name in sorted(CASES):
        path = os.path.join(OUT, name)
        shutil.rmtree(path, ignore_errors=True)
        save_model(tf, name, path)
        print(path)


if __name__ == "__main__":
    main()
