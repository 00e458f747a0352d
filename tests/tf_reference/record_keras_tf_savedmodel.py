"""Keras's TF-format SavedModel under TF 1.15 in graph mode: model.save(path,
save_format='tf') of a Sequential MLP (Dense relu, Dropout, Dense softmax; adam,
sparse_categorical_crossentropy, accuracy), of a functional MLP (SGD, mse, mae) and of a
functional model with a batch norm and a nested Sequential (rmsprop), each
trained a little from weights set explicitly. Their SavedModel directories are stored as
data/keras_tf_savedmodel/<case>.tar.gz; data/keras_tf_savedmodel.json holds the files TF
wrote, the predictions before saving and, of tf.keras.models.load_model's model, its
summary, layers, optimizer, predictions and evaluation (compiled from the saved training
config), plus the errors TF raises. tests/unit/test_keras_tf_savedmodel.py loads the
directories with tfcluster. Run under TF 1.15:

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_tf_savedmodel.py
"""

import functools
import json
import os
import shutil
import tarfile
import tempfile

import keras_tf_savedmodel_models as models
import tensorflow as tf
from keras_tf_savedmodel_models import X_SEQUENCES, Y_CLASSES, Y_VALUES, X, set_weights
from recorder import Recorder
from tensorflow.core.protobuf import saved_model_pb2

if not tf.__version__.startswith("1."):
    raise SystemExit("record_keras_tf_savedmodel.py records TensorFlow 1.15")

here = os.path.dirname(os.path.abspath(__file__))
data_dir = os.path.join(here, "data", "keras_tf_savedmodel")
work = tempfile.mkdtemp()
Y_RECURRENT = Y_VALUES
sequential_mlp = functools.partial(models.sequential_mlp, tf)
functional_mlp = functools.partial(models.functional_mlp, tf)
nested_mlp = functools.partial(models.nested_mlp, tf)
recurrent = functools.partial(models.recurrent, tf)
two_inputs = functools.partial(models.two_inputs, tf)


def files(path):
    found = []
    for root, _, names in os.walk(path):
        for name in names:
            found.append(os.path.relpath(os.path.join(root, name), path))
    return sorted(found)


def summary(model):
    lines = []
    model.summary(print_fn=lines.append)
    return "\n".join(lines)


def record_case(rec, name, build, y, with_summary):
    x = X_SEQUENCES if name == "recurrent" else X
    tf.keras.backend.clear_session()
    tf.set_random_seed(1)
    model = build()
    set_weights(model)
    model.fit(x, y, epochs=2, batch_size=5, shuffle=False, verbose=0)
    before = model.predict(x)
    inbound = [
        [layer["name"], layer["inbound_nodes"]]
        for layer in model.get_config()["layers"]
        if "inbound_nodes" in layer
    ]
    path = os.path.join(work, name)
    model.save(path, save_format="tf")
    with tarfile.open(os.path.join(data_dir, name + ".tar.gz"), "w:gz") as archive:
        for rel in files(path):
            archive.add(os.path.join(path, rel), arcname=rel)
        archive.add(os.path.join(path, "assets"), arcname="assets", recursive=False)
    loaded = tf.keras.models.load_model(path)
    values = dict(
        files=files(path),
        inbound_nodes=inbound,
        predictions_before=before,
        class_name=type(loaded).__name__,
        name=loaded.name,
        layer_names=[layer.name for layer in loaded.layers],
        layer_classes=[type(layer).__name__ for layer in loaded.layers],
        optimizer=type(loaded.optimizer).__name__,
        optimizer_config=loaded.optimizer.get_config(),
        predictions=loaded.predict(x),
        evaluate=loaded.evaluate(x, y, verbose=0),
    )
    if with_summary:
        values["summary"] = summary(loaded)
    else:
        # TF 1.15's revived functional model has unbuilt input layers: summary() fails.
        try:
            summary(loaded)
        except ValueError as e:
            values["summary_error"] = type(e).__name__
    rec.add(name, **values)


class Subclassed(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(2)

    def call(self, inputs):
        return self.dense(inputs)


def record_errors(rec):
    tf.keras.backend.clear_session()
    try:
        Subclassed().save(os.path.join(work, "subclassed"), save_format="tf")
    except ValueError as e:
        rec.add("subclassed_not_built", error=type(e).__name__, message=str(e).split(" ", 2)[0])
        rec.add("subclassed_not_built_tail", message=str(e).split(">", 1)[1])
    model = Subclassed()
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    model.fit(X, Y_VALUES, epochs=1, batch_size=5, verbose=0)
    path = os.path.join(work, "subclassed_fitted")
    model.save(path, save_format="tf")
    saved = saved_model_pb2.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        saved.ParseFromString(f.read())
    root = saved.meta_graphs[0].object_graph_def.nodes[0].user_object
    rec.add("subclassed_metadata", identifier=root.identifier, metadata=json.loads(root.metadata))
    missing = os.path.join(work, "missing")
    try:
        tf.keras.models.load_model(missing)
    except OSError as e:
        rec.add("load_missing", error=type(e).__name__, message=str(e).replace(work, "<dir>"))
    model = functional_mlp()
    path = os.path.join(work, "other_format")
    tf.keras.models.save_model(model, path, save_format="xyz")
    rec.add("save_format_other", files=files(path))


def record_call_signatures(rec):
    """The input specs of the model's and each layer's saved call (one concrete function,
    its first argument), as structure: a list argument is a list."""
    from tensorflow.python.saved_model import nested_structure_coder

    tf.keras.backend.clear_session()
    model = two_inputs()
    path = os.path.join(work, "two_inputs")
    model.save(path, save_format="tf")
    saved = saved_model_pb2.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        saved.ParseFromString(f.read())
    graph = saved.meta_graphs[0].object_graph_def
    coder = nested_structure_coder.StructureCoder()

    def spec(s):
        return [s.shape.as_list(), s.dtype.name, s.name]

    calls = {}
    for node in graph.nodes:
        if not node.user_object.identifier.startswith("_tf_keras_"):
            continue
        children = {c.local_name: c.node_id for c in node.children}
        api = {c.local_name: c.node_id for c in graph.nodes[children["keras_api"]].children}
        function = graph.nodes[api["call_and_return_conditional_losses"]].function
        if not function.concrete_functions:
            continue
        concrete = graph.concrete_functions[function.concrete_functions[0]]
        first = coder.decode_proto(concrete.canonicalized_input_signature)[0][0]
        name = json.loads(node.user_object.metadata)["name"]
        calls[name] = [spec(s) for s in first] if isinstance(first, list) else spec(first)
    rec.add("two_inputs_call_signatures", calls=calls)


def record_tf_saved_model_save(rec):
    """tf.saved_model.save of a compiled Keras model: Keras's identifiers too, and
    tf.keras.models.load_model revives and compiles it."""
    tf.keras.backend.clear_session()
    model = functional_mlp()
    set_weights(model)
    path = os.path.join(work, "saved_model_save")
    with tf.keras.backend.get_session().as_default():
        tf.saved_model.save(model, path)
    saved = saved_model_pb2.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        saved.ParseFromString(f.read())
    root = saved.meta_graphs[0].object_graph_def.nodes[0].user_object
    loaded = tf.keras.models.load_model(path)
    rec.add(
        "saved_model_save_keras",
        identifier=root.identifier,
        metadata_keys=sorted(json.loads(root.metadata)),
        class_name=type(loaded).__name__,
        optimizer=type(loaded.optimizer).__name__,
        predictions=loaded.predict(X),
    )


os.makedirs(data_dir, exist_ok=True)
rec = Recorder("keras_tf_savedmodel")
record_case(rec, "sequential_mlp", sequential_mlp, Y_CLASSES, True)
record_case(rec, "functional_mlp", functional_mlp, Y_VALUES, False)
record_case(rec, "nested_sequential", nested_mlp, Y_CLASSES, False)
record_case(rec, "recurrent", recurrent, Y_RECURRENT, True)
record_errors(rec)
record_call_signatures(rec)
record_tf_saved_model_save(rec)
rec.save()
shutil.rmtree(work)
