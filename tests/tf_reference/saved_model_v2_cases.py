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
        out["variables"] = [v.name for v in loaded.variables]
        out["trainable_variables"] = [v.name for v in loaded.trainable_variables]
        layer = getattr(loaded, "layer_with_weights-0")
        out["layer_variables"] = [layer.kernel.name, layer.bias.name]
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


def save_checkpoint(tf, path):
    """A tf.train.Checkpoint holding a variable and a tf.function (its save counter, which
    tf.saved_model.save creates, initialized before saving)."""
    with tf.Graph().as_default():
        ckpt = tf.train.Checkpoint(v=tf.Variable(3.0, use_resource=True, name="v"))
        ckpt.f = tf.function(lambda x: x * ckpt.v, input_signature=[tf.TensorSpec([], tf.float32)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(ckpt.save_counter.initializer)
            tf.saved_model.save(ckpt, path)


def run_loaded_checkpoint(tf, path):
    out = {}
    with tf.Graph().as_default():
        loaded = tf.saved_model.load_v2(path)
        out["attributes"] = sorted(a for a in dir(loaded) if not a.startswith("_"))
        out["signature_keys"] = sorted(loaded.signatures.keys())
        fetches = {
            "f": loaded.f(tf.constant(2.0)),
            "serving_default": loaded.signatures["serving_default"](x=tf.constant(2.0)),
            "save_counter": loaded.save_counter.read_value(),
        }
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["load_v2"] = sess.run(fetches)
    out["loader"] = _loader_serving(tf, path, {"x": np.float32(2.0)})
    return out


def container_class(tf):
    class Containers(tf.Module):
        def __init__(self):
            super().__init__()
            self.vs = [
                tf.Variable(1.0, use_resource=True, name="a"),
                tf.Variable(2.0, use_resource=True, name="c"),
            ]
            self.d = {"k": tf.Variable(5.0, use_resource=True, name="d")}

        @tf.function
        def h(self, x):
            return x + self.vs[0] + self.vs[1] * self.d["k"]

    return Containers


def save_containers(tf, path):
    """A tf.Module with a list and a dict of variables and a tf.function without an input
    signature, traced once (no signature is made)."""
    with tf.Graph().as_default():
        module = container_class(tf)()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            module.h(tf.constant(1.0))
            tf.saved_model.save(module, path)


def run_loaded_containers(tf, path):
    out = {}
    with tf.Graph().as_default():
        loaded = tf.saved_model.load_v2(path)
        out["attributes"] = sorted(a for a in dir(loaded) if not a.startswith("_"))
        out["signature_keys"] = sorted(loaded.signatures.keys())
        out["list_names"] = [v.name for v in loaded.vs]
        out["dict_keys"] = sorted(loaded.d.keys())
        out["bad_call"] = _error(lambda: loaded.h(tf.constant([1.0, 2.0])))
        fetches = {"h": loaded.h(tf.constant(1.0)), "h_python_float": loaded.h(1.0)}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["load_v2"] = sess.run(fetches)
    return out


def _error(fn):
    try:
        fn()
    except Exception as e:  # the class is what is compared
        return type(e).__name__
    return None


def ref_variable_class(tf):
    class RefVariable(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(1.0, name="refv")

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def f(self, x):
            return x * self.v

    return RefVariable


FUNCTIONAL_A = np.ones((2, 3), np.float32)
FUNCTIONAL_B = np.arange(4, dtype=np.float32).reshape(2, 2)


def save_functional(tf, path):
    """A functional Keras model with two named inputs and two outputs (default signature)."""
    with tf.Graph().as_default():
        a = tf.keras.Input((3,), name="a")
        b = tf.keras.Input((2,), name="b")
        init = tf.keras.initializers.Constant(0.5)
        h = tf.keras.layers.Dense(2, name="da", kernel_initializer=init)(a)
        total = tf.keras.layers.Add(name="sum")([h, b])
        head = tf.keras.layers.Dense(1, name="head", kernel_initializer="ones")(total)
        tf.saved_model.save(tf.keras.Model([a, b], [total, head]), path)


def run_loaded_functional(tf, path):
    out = {}
    with tf.Graph().as_default():
        sig = tf.saved_model.load_v2(path).signatures["serving_default"]
        out["inputs"] = sorted(sig.structured_input_signature[1])
        out["outputs"] = sorted(sig.structured_outputs)
        result = sig(a=tf.constant(FUNCTIONAL_A), b=tf.constant(FUNCTIONAL_B))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["load_v2"] = sess.run(result)
    with tf.Graph().as_default(), tf.Session() as sess:
        sig = tf.saved_model.loader.load(sess, ["serve"], path).signature_def["serving_default"]
        feeds = {sig.inputs["a"].name: FUNCTIONAL_A, sig.inputs["b"].name: FUNCTIONAL_B}
        out["loader"] = sess.run({k: v.name for k, v in sig.outputs.items()}, feeds)
    return out


def save_concrete(tf, path):
    """A concrete function of a tf.function without input signature as the signature."""

    class Scale(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(2.0, use_resource=True, name="scale")

        @tf.function
        def f(self, x):
            return x * self.v

    with tf.Graph().as_default():
        module = Scale()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            concrete = module.f.get_concrete_function(tf.TensorSpec([None], tf.float32, name="inp"))
            tf.saved_model.save(module, path, signatures=concrete)


def run_loaded_concrete(tf, path):
    out = {}
    with tf.Graph().as_default():
        loaded = tf.saved_model.load_v2(path)
        sig = loaded.signatures["serving_default"]
        out["inputs"] = sorted(sig.structured_input_signature[1])
        fetches = {"signature": sig(inp=tf.constant([1.0, 2.0])), "f": loaded.f(tf.constant([3.0]))}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["load_v2"] = sess.run(fetches)
    out["loader"] = _loader_serving(tf, path, {"inp": np.array([1.0, 2.0], np.float32)})
    return out


SIGNATURE_OUTPUTS = {
    "nested": lambda x, v: [x, [x * v]],
    "pair": lambda x, v: (x, x * v),
    "non_tensor_value": lambda x, v: {"a": x, "b": None},
}


def save_signature_outputs(tf, path, kind):
    """A signature function returning SIGNATURE_OUTPUTS[kind]: a flat tuple becomes
    output_0, output_1; a nested list or a dict with a non-Tensor value is refused."""
    body = SIGNATURE_OUTPUTS[kind]
    with tf.Graph().as_default():
        module = tf.Module()
        module.v = tf.Variable(2.0, use_resource=True, name="v")
        fn = tf.function(
            lambda x: body(x, module.v), input_signature=[tf.TensorSpec([], tf.float32)]
        )
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.saved_model.save(module, path, signatures=fn)


def run_loaded_pair(tf, path):
    with tf.Graph().as_default():
        result = tf.saved_model.load_v2(path).signatures["serving_default"](x=tf.constant(3.0))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return {"load_v2": sess.run(result)}


BN_X = np.linspace(-1, 1, 8).reshape(2, 4).astype(np.float32)


def save_keras_bn(tf, path):
    """Dense, BatchNormalization, Dropout, Dense: the signature runs in inference mode (the
    moving statistics, no dropout)."""
    with tf.Graph().as_default():
        model = tf.keras.Sequential(
            [
                tf.keras.layers.Dense(3, input_shape=(4,), kernel_initializer="ones"),
                tf.keras.layers.BatchNormalization(),
                tf.keras.layers.Dropout(0.5),
                tf.keras.layers.Dense(2, kernel_initializer="ones"),
            ]
        )
        tf.saved_model.save(model, path)


def run_loaded_keras_bn(tf, path):
    out = {}
    with tf.Graph().as_default():
        loaded = tf.saved_model.load_v2(path)
        result = loaded.signatures["serving_default"](dense_input=tf.constant(BN_X))
        out["variables"] = [v.name for v in loaded.variables]
        out["trainable_variables"] = [v.name for v in loaded.trainable_variables]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["load_v2"] = sess.run(result)
    out["loader"] = _loader_serving(tf, path, {"dense_input": BN_X})
    return out


def save_captured_constant(tf, path):
    """A tf.function capturing a constant made outside it (saved as a constant node)."""
    with tf.Graph().as_default():
        module = tf.Module()
        module.v = tf.Variable(2.0, use_resource=True, name="v")
        offset = tf.constant([1.0, 2.0, 3.0], name="offset")
        module.f = tf.function(
            lambda x: x * module.v + offset, input_signature=[tf.TensorSpec([3], tf.float32)]
        )
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.saved_model.save(module, path)


def run_loaded_captured_constant(tf, path):
    with tf.Graph().as_default():
        loaded = tf.saved_model.load_v2(path)
        fetches = {
            "f": loaded.f(tf.constant([1.0, 1.0, 1.0])),
            "serving_default": loaded.signatures["serving_default"](x=tf.constant([2.0] * 3)),
        }
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = {"load_v2": sess.run(fetches)}
    out["loader"] = _loader_serving(tf, path, {"x": np.full([3], 2.0, np.float32)})
    return out


SUBCLASSED_X = np.array([[1.0, 2.0, 3.0]], np.float32)


def save_subclassed(tf, path):
    """A subclassed Keras model called once (its signature takes that call's inputs, the
    batch size left open) and saved."""

    class Sub(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.d = tf.keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="ones")

        def call(self, x):
            return self.d(x)

    with tf.Graph().as_default():
        model = Sub()
        model(tf.constant(np.ones((1, 3), np.float32)))
        tf.saved_model.save(model, path)


def run_loaded_subclassed(tf, path):
    out = {}
    with tf.Graph().as_default():
        loaded = tf.saved_model.load_v2(path)
        sig = loaded.signatures["serving_default"]
        out["inputs"] = sorted(sig.structured_input_signature[1])
        out["outputs"] = sorted(sig.structured_outputs)
        out["layer_variables"] = [v.name for v in loaded.d.variables]
        result = sig(input_1=tf.constant(np.tile(SUBCLASSED_X, (2, 1))))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["load_v2"] = sess.run(result)
    out["loader"] = _loader_serving(tf, path, {"input_1": np.tile(SUBCLASSED_X, (2, 1))})
    return out


def _loader_serving(tf, path, feeds):
    """loader.load's serving_default signature run on feeds (input key -> value)."""
    with tf.Graph().as_default(), tf.Session() as sess:
        sig = tf.saved_model.loader.load(sess, ["serve"], path).signature_def["serving_default"]
        fetches = {k: v.name for k, v in sig.outputs.items()}
        return sess.run(fetches, {sig.inputs[k].name: v for k, v in feeds.items()})


COMPILED_X = np.linspace(-1, 1, 8).reshape(2, 4).astype(np.float32)
COMPILED_Y = np.array([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]], np.float32)


def save_compiled(tf, path):
    """A compiled Keras model trained one step with Adam: its optimizer (step, hyper-
    parameters, slots) is saved with it."""
    with tf.Graph().as_default():
        model = tf.keras.Sequential(
            [tf.keras.layers.Dense(3, input_shape=(4,), kernel_initializer="ones")]
        )
        model.compile(tf.keras.optimizers.Adam(0.1), "mse")
        model.fit(COMPILED_X, COMPILED_Y, batch_size=2, epochs=1, verbose=0)
        tf.saved_model.save(model, path)


def run_loaded_compiled(tf, path):
    """The loaded optimizer's children, and every variable's value in load order."""
    out = {}
    with tf.Graph().as_default():
        loaded = tf.saved_model.load_v2(path)
        names = ("iter", "beta_1", "beta_2", "decay", "learning_rate")
        out["optimizer_children"] = [n for n in names if hasattr(loaded.optimizer, n)]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["values"] = sess.run(tf.global_variables())
    return out


def save_keras_serving_only(tf, path):
    """tf.keras.experimental.export_saved_model(serving_only=True) with an unnamed
    input_signature (its input is args_0): tf.saved_model.save's files plus the config."""
    with tf.Graph().as_default():
        model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,))])
        model.set_weights([KERAS_KERNEL, KERAS_BIAS])
        tf.keras.experimental.export_saved_model(
            model,
            path,
            serving_only=True,
            input_signature=[tf.TensorSpec([None, 4], tf.float32)],
        )


def run_loaded_keras_serving_only(tf, path):
    import os

    out = {"assets": sorted(os.listdir(os.path.join(path, "assets")))}
    with tf.Graph().as_default():
        sig = tf.saved_model.load_v2(path).signatures["serving_default"]
        out["inputs"] = sorted(sig.structured_input_signature[1])
        result = sig(args_0=tf.constant(KERAS_X))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["load_v2"] = sess.run(result)
    out["loader"] = _loader_serving(tf, path, {"args_0": KERAS_X})
    return out


# Each program: its name (the sample folders' suffix), how it saves and how its load is run.
PROGRAMS = [
    ("keras", save_keras, run_loaded_keras),
    ("module", save_module, run_loaded_module),
    ("checkpoint", save_checkpoint, run_loaded_checkpoint),
    ("containers", save_containers, run_loaded_containers),
    ("functional", save_functional, run_loaded_functional),
    ("concrete", save_concrete, run_loaded_concrete),
    ("keras_bn", save_keras_bn, run_loaded_keras_bn),
    ("captured_constant", save_captured_constant, run_loaded_captured_constant),
    ("subclassed", save_subclassed, run_loaded_subclassed),
    ("compiled", save_compiled, run_loaded_compiled),
    ("keras_serving_only", save_keras_serving_only, run_loaded_keras_serving_only),
]
