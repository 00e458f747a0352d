"""Records TensorFlow 1.15's input layer of the canned DNN estimators over v2 feature columns
(DenseFeatures: ops, variables, losses) and of tf.keras.layers.DenseFeatures, the programs of
dnn_dense_features_cases.py: data/dnn_dense_features.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_dnn_dense_features.py
"""

from __future__ import annotations

from case_tools import record_tf115
from dnn_dense_features_cases import CASES

record_tf115("dnn_dense_features", CASES)
