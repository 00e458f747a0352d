"""Programs whose feature columns make TF 1.15's own code call the deprecated v1 methods of its
columns ("EmbeddingColumn._get_dense_tensor (from
tensorflow.python.feature_column.feature_column_v2) is deprecated and will be removed in a
future version. ...", once per method, in the order TF's input_layer, linear_model and canned
estimators call them), for TF 1.15 (recorded by record_feature_column_deprecations.py) and
tfcluster (tests/unit/test_feature_column_deprecations.py). Each runs as a script file of its
own (deprecated_name_cases.run_program); its stdout and every deprecation warning on stderr are
compared, the file and line of those TF prints from its own code left out. Python 3.7 code."""

import os
import re

try:  # run by the tests (tests/ on the path) or by the recorder (in its folder)
    from tf_reference.deprecated_name_cases import run_program
except ImportError:
    from deprecated_name_cases import run_program

_COLUMNS = """
import tensorflow as tf
fc = tf.feature_column
"""

CASES = {
    "input_layer_embedding_and_numeric": _COLUMNS
    + """
cat = fc.categorical_column_with_identity("c", 5)
feats = {"c": tf.constant([[1], [2]], tf.int64), "x": tf.constant([[1.0], [2.0]])}
out = fc.input_layer(feats, [fc.embedding_column(cat, 3), fc.numeric_column("x")])
again = fc.input_layer(feats, [fc.embedding_column(cat, 3), fc.numeric_column("x")])
print(out.shape)
""",
    "input_layer_bucketized_and_indicators": _COLUMNS
    + """
x = fc.numeric_column("x")
b = fc.bucketized_column(x, [0.0, 1.5])
v = fc.categorical_column_with_vocabulary_list("v", ["a", "b", "c"])
h = fc.categorical_column_with_hash_bucket("h", 7)
feats = {
    "x": tf.constant([[1.0], [2.0]]),
    "v": tf.constant([["a"], ["c"]]),
    "h": tf.constant([["p"], ["q"]]),
}
out = fc.input_layer(feats, [b, fc.indicator_column(v), fc.indicator_column(h)])
print(out.shape)
""",
    "input_layer_crossed_weighted_and_vocabulary_file": _COLUMNS
    + """
with open("vocab.txt", "w") as f:
    f.write("a\\nb\\nc\\n")
vf = fc.categorical_column_with_vocabulary_file("f", "vocab.txt", vocabulary_size=3)
h = fc.categorical_column_with_hash_bucket("h", 7)
i = fc.categorical_column_with_identity("i", 4)
crossed = fc.crossed_column(["h", vf], 11)
weighted = fc.weighted_categorical_column(i, "w")
feats = {
    "f": tf.constant([["a"], ["c"]]),
    "h": tf.constant([["p"], ["q"]]),
    "i": tf.constant([[1], [3]], tf.int64),
    "w": tf.constant([[0.5], [2.0]]),
}
columns = [
    fc.embedding_column(vf, 2),
    fc.indicator_column(crossed),
    fc.embedding_column(weighted, 2),
]
out = fc.input_layer(feats, columns)
print(out.shape)
""",
    "linear_model_of_every_kind": _COLUMNS
    + """
x = fc.numeric_column("x")
v = fc.categorical_column_with_vocabulary_list("v", ["a", "b", "c"])
h = fc.categorical_column_with_hash_bucket("h", 7)
i = fc.categorical_column_with_identity("i", 4)
columns = [
    x,
    fc.bucketized_column(x, [0.0, 1.5]),
    v,
    h,
    fc.crossed_column(["h", v], 11),
    fc.weighted_categorical_column(i, "w"),
]
feats = {
    "x": tf.constant([[1.0], [2.0]]),
    "v": tf.constant([["a"], ["c"]]),
    "h": tf.constant([["p"], ["q"]]),
    "i": tf.constant([[1], [3]], tf.int64),
    "w": tf.constant([[0.5], [2.0]]),
}
out = fc.linear_model(feats, columns)
print(out.shape)
""",
    "linear_model_of_dense_columns": _COLUMNS
    + """
i = fc.categorical_column_with_identity("i", 4)
columns = [fc.embedding_column(i, 2), fc.indicator_column(i), fc.numeric_column("x")]
feats = {"x": tf.constant([[1.0], [2.0]]), "i": tf.constant([[1], [3]], tf.int64)}
out = fc.linear_model(feats, columns, units=2)
print(out.shape)
""",
}

CASES.update(
    {
        "parse_example_specs": _COLUMNS
        + """
i = fc.categorical_column_with_identity("i", 4)
columns = [
    fc.numeric_column("x"),
    fc.embedding_column(i, 2),
    fc.weighted_categorical_column(i, "w"),
]
spec = fc.make_parse_example_spec(columns)
print(sorted(spec))
spec2 = tf.estimator.classifier_parse_example_spec(columns, "label")
print(sorted(spec2))
""",
        "dense_features_layer": _COLUMNS
        + """
i = fc.categorical_column_with_identity("i", 4)
v = fc.categorical_column_with_vocabulary_list("v", ["a", "b", "c"])
columns = [
    fc.numeric_column("x"),
    fc.bucketized_column(fc.numeric_column("x"), [1.0]),
    fc.embedding_column(i, 2),
    fc.indicator_column(v),
    fc.indicator_column(fc.weighted_categorical_column(i, "w")),
]
feats = {
    "x": tf.constant([[1.0], [2.0]]),
    "v": tf.constant([["a"], ["c"]]),
    "i": tf.constant([[1], [3]], tf.int64),
    "w": tf.constant([[0.5], [2.0]]),
}
out = tf.keras.layers.DenseFeatures(columns)(feats)
print(out.shape)
""",
        "shared_embeddings_in_input_layer": _COLUMNS
        + """
a = fc.categorical_column_with_identity("a", 4)
b = fc.categorical_column_with_identity("b", 4)
shared = fc.shared_embedding_columns([a, b], 2)
feats = {"a": tf.constant([[1], [3]], tf.int64), "b": tf.constant([[0], [2]], tf.int64)}
out = fc.input_layer(feats, shared)
print(out.shape)
""",
        "program_reads_the_v1_protocol": _COLUMNS
        + """
cat = fc.categorical_column_with_identity("c", 5)
print(cat._num_buckets, cat._num_buckets)
print(sorted(cat._parse_example_spec))
emb = fc.embedding_column(cat, 2)
print(emb._variable_shape)
feats = {"c": tf.constant([[1], [2]], tf.int64)}
out = fc.input_layer(feats, [emb])
print(out.shape)
""",
    }
)

_ESTIMATOR = """
import numpy as np
import tensorflow as tf
fc = tf.feature_column
x = fc.numeric_column("x")
i = fc.categorical_column_with_identity("i", 4)
v = fc.categorical_column_with_vocabulary_list("v", ["a", "b", "c"])
data = {
    "x": np.array([[0.5], [1.5], [2.5], [3.5]], np.float32),
    "i": np.array([[0], [1], [2], [3]], np.int64),
    "v": np.array([["a"], ["b"], ["c"], ["a"]]),
}
labels = np.array([[0], [1], [0], [1]], np.int64)
input_fn = tf.estimator.inputs.numpy_input_fn(data, labels, batch_size=4, shuffle=False,
                                              num_epochs=None)
"""

CASES.update(
    {
        "linear_classifier_trains": _ESTIMATOR
        + """
columns = [x, fc.bucketized_column(x, [1.0, 2.0]), i, v]
model = tf.estimator.LinearClassifier(columns, model_dir="model")
model.train(input_fn, steps=2)
print(sorted(model.evaluate(input_fn, steps=1)))
""",
        "dnn_classifier_trains": _ESTIMATOR
        + """
columns = [x, fc.embedding_column(i, 2), fc.indicator_column(v)]
model = tf.estimator.DNNClassifier([3], columns, model_dir="model")
model.train(input_fn, steps=2)
print(sorted(model.evaluate(input_fn, steps=1)))
""",
        "regressors_of_more_columns_train": _ESTIMATOR
        + """
data["w"] = np.array([[0.5], [1.0], [2.0], [1.0]], np.float32)
weighted = fc.weighted_categorical_column(i, "w")
bucketized = fc.bucketized_column(x, [1.0, 2.0])
crossed = fc.crossed_column(["v", bucketized], 5)
linear = tf.estimator.LinearRegressor(
    [weighted, crossed, fc.indicator_column(v)], model_dir="linear"
)
linear.train(input_fn, steps=2)
dnn = tf.estimator.DNNRegressor(
    [3], [fc.embedding_column(weighted, 2), bucketized, fc.indicator_column(crossed)],
    model_dir="dnn",
)
dnn.train(input_fn, steps=2)
print(sorted(dnn.evaluate(input_fn, steps=1)))
""",
        "estimators_predict_from_a_dataset": _ESTIMATOR
        + """


def dataset_fn():
    ds = tf.data.Dataset.from_tensor_slices((data, labels))
    return ds.repeat().batch(2)


def predict_fn():
    return tf.data.Dataset.from_tensor_slices(data).batch(2)


dnn = tf.estimator.DNNClassifier(
    [3], [x, fc.indicator_column(v)], model_dir="dnn", n_classes=3,
    optimizer=tf.train.AdamOptimizer(0.01),
)
dnn.train(dataset_fn, steps=2)
print(sorted(next(dnn.predict(predict_fn))))
linear = tf.estimator.LinearRegressor([x, i], model_dir="linear")
linear.train(dataset_fn, steps=2)
print([sorted(p) for p in linear.predict(predict_fn)][:1])
""",
        "shared_embeddings_in_canned_estimators": _ESTIMATOR
        + """
data["j"] = np.array([[3], [2], [1], [0]], np.int64)
data["w"] = np.array([[0.5], [1.0], [2.0], [1.0]], np.float32)
j = fc.categorical_column_with_identity("j", 4)
shared = fc.shared_embedding_columns([i, j], 2)
dnn = tf.estimator.DNNClassifier([3], shared + [x], model_dir="dnn", weight_column="w")
dnn.train(input_fn, steps=2)
linear = tf.estimator.LinearClassifier(shared + [v], model_dir="linear")
linear.train(input_fn, steps=2)
print(sorted(linear.evaluate(input_fn, steps=1)))
""",
        "dnn_linear_combined_classifier_trains": _ESTIMATOR
        + """
model = tf.estimator.DNNLinearCombinedClassifier(
    model_dir="model",
    linear_feature_columns=[i, v],
    dnn_feature_columns=[x, fc.embedding_column(i, 2)],
    dnn_hidden_units=[3],
)
model.train(input_fn, steps=2)
print(sorted(model.evaluate(input_fn, steps=1)))
""",
    }
)


_PYTHON_WARNING = re.compile(r"^\S+:\d+: \w*Warning: ")
_LOG_RECORD = re.compile(r"^[A-Z]+:\w+:")


def deprecation_lines(stderr, where):
    """Every deprecation warning on stderr, each with its instruction lines, as printed: the
    program's file named relative to its folder, and those printed from the framework's own
    files ("From /.../feature_column.py:206: ...") as "From <framework>: ..."."""
    records = []
    current = None
    python_warning = False
    for line in stderr.splitlines():
        if not line.startswith("  "):
            python_warning = False
        if line.startswith("WARNING:"):
            current = [line]
            records.append(current)
        elif _LOG_RECORD.match(line):
            current = None  # another logged record (INFO:tensorflow:...)
        elif _PYTHON_WARNING.match(line):
            # A Python warning ("<file>:<line>: UserWarning: ..." and its indented source
            # line, of the framework's own file) ends the record before it.
            current = None
            python_warning = True
        elif python_warning and line.startswith("  "):
            continue
        elif current is not None and line.strip():
            current.append(line)
    kept = []
    head = "WARNING:tensorflow:From "
    for lines in records:
        text = "\n".join(lines).replace(where + os.sep, "")
        if " is deprecated" not in text or not text.startswith(head):
            continue
        site, _, message = text[len(head) :].partition(": ")
        if site.startswith("/"):
            site = "<framework>"
        kept.append("From " + site + ": " + message)
    return kept


def run_case(python, module, name, env=None):
    """{"stdout": ..., "warnings": [...]} of the case run as `python prog.py` in a fresh
    directory."""
    return run_program(python, CASES[name].replace("tensorflow", module), deprecation_lines, env)
