"""Records what TF 1.15 prints for the programs of feature_column_deprecation_cases.py (each run
as a script file of its own): their stdout and every deprecation warning, those TF's own code
prints (its feature columns' v1 protocol, "EmbeddingColumn._get_dense_tensor (from
tensorflow.python.feature_column.feature_column_v2) is deprecated ...") with their site left
out; tests/unit/test_feature_column_deprecations.py runs them on tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_feature_column_deprecations.py
"""

import json
import os
import sys

import tensorflow as tf
from feature_column_deprecation_cases import CASES, run_case

if not tf.__version__.startswith("1."):
    raise SystemExit("record_feature_column_deprecations.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
cases = {name: run_case(sys.executable, "tensorflow", name, env=env) for name in CASES}
with open(os.path.join(here, "data", "feature_column_deprecations.json"), "w") as f:
    json.dump({"tensorflow": tf.__version__, "cases": cases}, f, indent=1, sort_keys=True)
    f.write("\n")
