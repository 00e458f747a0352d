"""Keras layers and models are tf.Module instances in TF 1.15: isinstance, `submodules` (a
Sequential given an input shape keeps its InputLayer first), a tf.Module holding a model
finds the model's variables, and a layer has no `name_scope` (Module.__init__ never ran).
Recorded by record_keras_layer_module.py; tests/unit/test_keras_layer_module.py compares.

Python 3.7 code (the recorder runs under TF 1.15).
"""

try:
    from tf_reference.case_tools import cpp_log_program, registrar
except ImportError:  # the recorder, run from tests/tf_reference under TF 1.15
    from case_tools import cpp_log_program, registrar

CASES = {}
case = registrar(CASES, own_graph=True)


def _kinds(modules):
    return [[type(m).__name__, m.name] for m in modules]


@case
def layers_and_models_are_modules(tf):
    dense = tf.keras.layers.Dense(3)
    legacy = tf.layers.Dense(2)
    shaped = tf.keras.Sequential(
        [tf.keras.layers.Dense(4, input_shape=(2,)), tf.keras.layers.Dense(1)]
    )
    unshaped = tf.keras.Sequential([tf.keras.layers.Dense(4), tf.keras.layers.Dense(1)])
    x = tf.keras.Input((3,))
    functional = tf.keras.Model(x, tf.keras.layers.Dense(2)(x))
    return {
        "isinstance": [
            isinstance(obj, tf.Module) for obj in (dense, legacy, shaped, unshaped, functional)
        ],
        "shaped_submodules": _kinds(shaped.submodules),
        "shaped_layers": _kinds(shaped.layers),
        "unshaped_submodules": _kinds(unshaped.submodules),
        "functional_submodules": _kinds(functional.submodules),
        "has_name_scope": hasattr(dense, "name_scope"),
    }


@case
def a_module_holding_a_model(tf):
    class Holder(tf.Module):
        def __init__(self, net):
            super().__init__(name="holder")
            self.net = net
            self.v = tf.Variable(1.0, name="v")

    net = tf.keras.Sequential(
        [tf.keras.layers.Dense(4, input_shape=(2,)), tf.keras.layers.Dense(1)]
    )
    holder = Holder(net)
    return {
        "trainable_variables": [v.name for v in holder.trainable_variables],
        "variables": [v.name for v in holder.variables],
        "submodules": _kinds(holder.submodules),
    }


# Programs whose nest meets sets: TF warns once per process on stderr that sets (every Keras
# layer holds one) are not sequences.
PROGRAMS = {
    "walk_warning": """
import sys
import {module} as tf
print("walking", file=sys.stderr, flush=True)
model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
model.submodules
print("again", file=sys.stderr, flush=True)
tf.keras.layers.Dense(1).submodules
print("done", file=sys.stderr, flush=True)
""",
    "nest_warning": """
import sys
import {module} as tf
print("walking", file=sys.stderr, flush=True)
print(tf.nest.flatten({{1, 2}}), file=sys.stderr, flush=True)
print("again", file=sys.stderr, flush=True)
print(tf.nest.flatten([{{3}}, (4, 5)]), tf.nest.is_nested(frozenset()), file=sys.stderr)
print("done", file=sys.stderr, flush=True)
""",
}


def warning_lines(python, module, name, env=None):
    """The program's marks and printed lines, and TF's C++ log lines from util.cc
    (timestamps dropped)."""

    def keep(line):
        return line in ("walking", "again", "done") or line.startswith("[")

    return cpp_log_program(python, PROGRAMS[name].format(module=module), "util.cc", keep, env)
