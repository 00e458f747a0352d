"""Records the warning TF 1.15's memory cache logs when a partial pass is dropped (TF 1.15
only):

    cd tests/tf_reference && /tmp/tf115/bin/python record_cache_warning.py

Each program of cache_warning_cases.py runs in a process of its own; its marks and the
cache kernel's log lines go to data/cache_warning.json. tests/unit/test_cache_warning.py
compares tfcluster's.
"""

import sys

import tensorflow as tf
from cache_warning_cases import CASES, run_case
from recorder import Recorder

if not tf.__version__.startswith("1.15"):
    raise SystemExit("record_cache_warning.py records TensorFlow 1.15")


def main():
    rec = Recorder("cache_warning")
    for name in sorted(CASES):
        rec.add(name, lines=run_case(sys.executable, "tensorflow", name))
    print(rec.save())


if __name__ == "__main__":
    main()
