"""Programs of tf.saved_model.save / load_v2 that run on TF 1.15 and on tfcluster alike
(`tf` is either): models with fixed weights, what is saved, and how a loaded one is run.
Python 3.7 code (record_saved_model_v2.py runs it under TF 1.15)."""

import numpy as np

KERAS_X = (np.arange(8, dtype=np.float32).reshape(2, 4) / 7.0 - 0.5).astype(np.float32)
KERAS_KERNEL = (np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0 - 0.5).astype(np.float32)
KERAS_BIAS = np.array([0.1, -0.2, 0.3], np.float32)
MODULE_X = np.array([[1.0, 2.0], [-1.0, 0.5]], np.float32)
MODULE_Y = np.float32(3.0)


def save_keras(tf, path):
    """A Sequential Dense(3) on 4 inputs with fixed weights, saved (default signature)."""
    with tf.Graph().as_default():
        model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,))])
        model.set_weights([KERAS_KERNEL, KERAS_BIAS])
        tf.saved_model.save(model, path)


def module_class(tf):
    class Affine(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w", use_resource=True)
            self.b = tf.Variable(0.5, name="b", use_resource=True)

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
        def f(self, x):
            return tf.matmul(x, self.v) + self.b

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def g(self, y):
            return {"a": y * self.b, "b": y + 1.0}

    return Affine


def save_module(tf, path):
    """A tf.Module with two tf.functions, saved with two signatures in a session."""
    with tf.Graph().as_default():
        module = module_class(tf)()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.saved_model.save(
                module, path, signatures={"serving_default": module.f, "two": module.g}
            )


def run_loaded_keras(tf, path):
    """load_v2's serving_default signature, then loader.load's, on KERAS_X."""
    out = {}
    with tf.Graph().as_default():
        loaded = tf.saved_model.load_v2(path)
        result = loaded.signatures["serving_default"](dense_input=tf.constant(KERAS_X))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["load_v2"] = sess.run(result)
        out["signature_keys"] = sorted(loaded.signatures.keys())
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], path)
        sig = meta.signature_def["serving_default"]
        out["loader_inputs"] = sorted(sig.inputs.keys())
        out["loader"] = sess.run(
            {k: v.name for k, v in sig.outputs.items()}, {sig.inputs["dense_input"].name: KERAS_X}
        )
    return out


def run_loaded_module(tf, path):
    """load_v2: the functions f and g, both signatures, the variables; loader.load's
    signatures."""
    out = {}
    with tf.Graph().as_default():
        loaded = tf.saved_model.load_v2(path)
        out["attributes"] = sorted(a for a in dir(loaded) if not a.startswith("_"))
        out["variables"] = [[v.name, v.shape.as_list()] for v in (loaded.v, loaded.b)]
        out["global_variables"] = [v.name for v in tf.global_variables()]
        fetches = {
            "f": loaded.f(tf.constant(MODULE_X)),
            "g": loaded.g(tf.constant(MODULE_Y)),
            "serving_default": loaded.signatures["serving_default"](x=tf.constant(MODULE_X)),
            "two": loaded.signatures["two"](y=tf.constant(MODULE_Y)),
        }
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["load_v2"] = sess.run(fetches)
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], path)
        out["loader_signatures"] = sorted(meta.signature_def.keys())
        sig = meta.signature_def["two"]
        out["loader_two"] = sess.run(
            {k: v.name for k, v in sig.outputs.items()}, {sig.inputs["y"].name: MODULE_Y}
        )
        sig = meta.signature_def["serving_default"]
        out["loader_serving"] = sess.run(
            {k: v.name for k, v in sig.outputs.items()}, {sig.inputs["x"].name: MODULE_X}
        )
    return out
