"""Records TF 1.15's SQLite summary databases (summary_db_cases.py) for
tests/unit/test_summary_db.py. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_summary_db.py
"""

import os
import tempfile

import tensorflow as tf
from recorder import Recorder
from summary_db_cases import CASES, dump

if not tf.__version__.startswith("1."):
    raise SystemExit("record_summary_db.py records TensorFlow 1.15")

rec = Recorder("summary_db")
for name, program in sorted(CASES.items()):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "summaries.sqlite")
        program(tf, path)
        rec.add(name, dump=dump(path))
rec.save()
