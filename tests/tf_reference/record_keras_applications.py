"""Records TensorFlow 1.15's tf.keras.applications on keras_applications_cases.py: every
model's layers, weights and parameter counts (weights=None, small inputs), the argument
checks' errors, predictions under seeded weights, one model's initial weights as TF's HDF5
(data/keras_applications/), preprocess_input on arrays and tensors and decode_predictions.
Run under TF 1.15 (h5py beside it):

    cd tests/tf_reference && /tmp/tf115/bin/python record_keras_applications.py
"""

from __future__ import annotations

import os
import sys
import warnings

import keras_applications.imagenet_utils as ka_imagenet_utils
import numpy as np
import tensorflow as real_tf
from keras_applications_cases import (
    ERRORS,
    H5_FILE,
    H5_MODEL,
    PREDICTIONS,
    PREPROCESS,
    STRUCTURES,
    application,
    class_index,
    decode_inputs,
    describe,
    digest,
    pack,
    prediction_input,
    preprocess_inputs,
    preprocess_kwargs,
    seeded_weights,
)
from recorder import DATA_DIR, Recorder

if not real_tf.__version__.startswith("1."):
    raise SystemExit("record_keras_applications.py records TensorFlow 1.15")
tf = real_tf.compat.v1
tf.logging.set_verbosity(tf.logging.ERROR)
K = tf.keras.backend
FILES = os.path.join(DATA_DIR, "keras_applications")

rec = Recorder("keras_applications")

for name, (module, fn, kwargs) in sorted(STRUCTURES.items()):
    K.clear_session()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = application(tf.keras, module, fn)(**kwargs)
    rec.add(
        "structure_" + name,
        warnings=[str(w.message) for w in caught if "applications" in w.filename],
        description=pack(describe(model)),
    )
    print(name, model.count_params(), file=sys.stderr)

for name, (module, fn, kwargs) in sorted(ERRORS.items()):
    K.clear_session()
    build = application(tf.keras, module, fn)
    rec.add("error_" + name, error=rec.catch(lambda: build(**kwargs)))  # noqa: B023

# A placeholder that is not a Keras tensor, and a Keras Input, given as input_tensor.
K.clear_session()
images = tf.placeholder(tf.float32, (None, 32, 32, 3), name="images")
model = tf.keras.applications.VGG19(weights=None, include_top=False, input_tensor=images)
rec.add("structure_vgg19_placeholder_input_tensor", description=pack(describe(model)))
K.clear_session()
inp = tf.keras.layers.Input((40, 40, 3), name="my_input")
model = tf.keras.applications.MobileNetV2(weights=None, include_top=False, input_tensor=inp)
rec.add("structure_mobilenetv2_keras_input_tensor", description=pack(describe(model)))

for name, (module, fn, kwargs, batch) in sorted(PREDICTIONS.items()):
    K.clear_session()
    model = application(tf.keras, module, fn)(**kwargs)
    model.set_weights(seeded_weights(model))
    x = prediction_input(kwargs["input_shape"], batch)
    rec.add("predict_" + name, x_digest=digest(x), y=model.predict(x))

# TF's own HDF5 file of a model's initial weights, and its predictions with them.
K.clear_session()
module, fn, kwargs = H5_MODEL
model = application(tf.keras, module, fn)(weights=None, **kwargs)
os.makedirs(FILES, exist_ok=True)
model.save_weights(os.path.join(FILES, H5_FILE))
x = prediction_input(kwargs["input_shape"], 2)
rec.add("predict_h5_initial_weights", x_digest=digest(x), y=model.predict(x))

inputs = preprocess_inputs()
for name, (module, input_name, data_format, mode) in sorted(PREPROCESS.items()):
    x = inputs[input_name]
    fn = getattr(tf.keras.applications, module).preprocess_input
    out = fn(x.copy(), **preprocess_kwargs(data_format, mode))
    rec.add("preprocess_array_" + name, y=out)

# Tensors: each case in a graph of its own, as the first symbolic call of a program.
# keras_applications caches the mean constant of its first symbolic call in a module global:
# later calls reuse it whatever their mode, and fail in another graph. tfcluster does not
# keep that cache, so it is reset here and each case records what a first call gives.
for name, (module, input_name, data_format, mode) in sorted(PREPROCESS.items()):
    K.clear_session()
    ka_imagenet_utils._IMAGENET_MEAN = None
    x = inputs[input_name].astype(np.float32)
    t = tf.placeholder(tf.float32, x.shape)
    fn = getattr(tf.keras.applications, module).preprocess_input
    try:
        out = fn(t, **preprocess_kwargs(data_format, mode))
    except Exception as e:  # 'torch' on channels_first divides along the last axis
        rec.add("preprocess_tensor_" + name, error=e)
        continue
    with tf.Session() as sess:
        y = sess.run(out, {t: x})
    rec.add("preprocess_tensor_" + name, y=y, shape=[d.value for d in out.shape])

rec.add(
    "preprocess_bad_data_format",
    error=rec.catch(
        lambda: tf.keras.applications.imagenet_utils.preprocess_input(
            np.zeros((1, 2, 2, 3)), data_format="channels_middle"
        )
    ),
)

ka_imagenet_utils.CLASS_INDEX = class_index()
for name, (preds, top) in sorted(decode_inputs().items()):
    out = tf.keras.applications.imagenet_utils.decode_predictions(preds, top=top)
    rec.add(
        "decode_" + name,
        preds=preds,
        top=top,
        decoded=[[[c, d, float(s)] for c, d, s in row] for row in out],
        types=sorted({type(s).__name__ for row in out for _, _, s in row}),
    )
rec.add(
    "decode_wrong_shape",
    error=rec.catch(
        lambda: tf.keras.applications.vgg16.decode_predictions(np.zeros((2, 10), np.float32))
    ),
)
rec.save()
