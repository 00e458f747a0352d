"""Optimizers a program writes itself against TF 1.15's private modules (subclasses of
tensorflow.python.training.optimizer.Optimizer, as TF1 repositories of AMSGrad, AdaBound or
RAdam do): non-slot variables made by keyword (`_create_non_slot_variable(initial_value=,
name=, colocate_with=)`) or by `variable_scope.variable`, updates through state_ops' scatter
functions and resource_variable_ops' resource_scatter_add, and resource variables updated by
the class's own `_resource_apply_dense` / `_resource_apply_sparse`. Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_program_optimizers.py and on
tfcluster by tests/unit/test_program_optimizers.py. Python 3.7 code."""

from __future__ import annotations

import importlib

import numpy as np

try:
    from tf_reference.case_tools import registrar
except ImportError:  # run as a recorder, from tests/tf_reference
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True, graph_seed=7)


def _private(tf, path):
    return importlib.import_module(tf.__name__.split(".")[0] + ".python." + path)


def _optimizer_classes(tf):
    optimizer = _private(tf, "training.optimizer")
    state_ops = _private(tf, "ops.state_ops")
    variable_scope = _private(tf, "ops.variable_scope")
    resource_variable_ops = _private(tf, "ops.resource_variable_ops")
    math_ops = _private(tf, "ops.math_ops")

    class ScaledDescent(optimizer.Optimizer):
        """Plain descent on reference variables, doubled on dense resource variables and
        tripled on sparse resource rows, so the values say which update ran."""

        def __init__(self, rate):
            super().__init__(False, "ScaledDescent")
            self._rate = rate
            self._scale = None

        def _create_slots(self, var_list):
            first = min(var_list, key=lambda v: v.name)
            self._create_non_slot_variable(initial_value=1.0, name="step", colocate_with=first)
            if self._scale is None:
                self._scale = variable_scope.variable(0.5, name="scale", trainable=False)
            for v in var_list:
                self._zeros_slot(v, "last", self._name)

        def _rate_for(self, var):
            step = self._get_non_slot_variable("step", graph=var.graph)
            return math_ops.cast(self._rate * step, var.dtype.base_dtype)

        def _apply_dense(self, grad, var):
            last = state_ops.assign(self.get_slot(var, "last"), grad)
            return state_ops.assign_sub(var, self._rate_for(var) * last).op

        def _resource_apply_dense(self, grad, var):
            last = state_ops.assign(self.get_slot(var, "last"), grad)
            return state_ops.assign_sub(var, 2.0 * self._rate_for(var) * last)

        def _apply_sparse(self, grad, var):
            return state_ops.scatter_sub(var, grad.indices, self._rate_for(var) * grad.values).op

        def _resource_apply_sparse(self, grad, var, indices):
            return resource_variable_ops.resource_scatter_add(
                var.handle, indices, -3.0 * self._rate_for(var) * grad
            )

        def _finish(self, update_ops, name_scope):
            with tf.control_dependencies(update_ops):
                step = self._get_non_slot_variable("step", graph=tf.get_default_graph())
                with tf.colocate_with(step):
                    bump = step.assign(step * self._scale + 1.0)
            return tf.group(*update_ops, bump, name=name_scope)

    class OnlyResourceUpdates(optimizer.Optimizer):
        """Defines the resource updates alone."""

        def __init__(self):
            super().__init__(False, "OnlyResource")

        def _resource_apply_dense(self, grad, var):
            return state_ops.assign_sub(var, 0.02 * grad)

        def _resource_apply_sparse(self, grad, var, indices):
            return resource_variable_ops.resource_scatter_sub(var.handle, indices, 0.04 * grad)

    return ScaledDescent, OnlyResourceUpdates


def _train(tf, make_optimizer, use_resource, steps=3):
    rng = np.random.RandomState(0)
    x = tf.constant(rng.randn(6, 3).astype(np.float32))
    ids = tf.constant([0, 2, 2, 1, 0, 3])
    with tf.variable_scope("model", use_resource=use_resource):
        emb = tf.get_variable("emb", [4, 3])
        w = tf.get_variable("w", [3, 1])
    loss = tf.reduce_sum(tf.square(tf.matmul(x + tf.nn.embedding_lookup(emb, ids), w)))
    opt = make_optimizer()
    train = opt.minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = []
        for _ in range(steps):
            losses.append(float(sess.run([loss, train])[0]))
        values = sess.run({v.op.name: v for v in tf.global_variables()})
    return {
        "losses": losses,
        "variables": {k: np.asarray(v).tolist() for k, v in sorted(values.items())},
        "slots": opt.get_slot_names(),
    }


@case
def a_program_optimizer_on_reference_variables(tf):
    """_apply_dense and _apply_sparse (state_ops.scatter_sub) run; the non-slot variables
    made by keyword and by variable_scope.variable live beside the model's."""
    scaled, _ = _optimizer_classes(tf)
    return _train(tf, lambda: scaled(0.05), use_resource=False)


@case
def a_program_optimizer_on_resource_variables(tf):
    """Resource variables take the class's _resource_apply_dense (doubled steps) and
    _resource_apply_sparse (resource_scatter_add, tripled), given the variable itself."""
    scaled, _ = _optimizer_classes(tf)
    return _train(tf, lambda: scaled(0.02), use_resource=True)


@case
def an_optimizer_with_only_resource_updates(tf):
    """A class defining only the resource updates trains resource variables."""
    _, only_resource = _optimizer_classes(tf)
    return _train(tf, only_resource, use_resource=True)


def _keras_optimizer_class(tf):
    """A Keras OptimizerV2 subclass as programs write one (AdamP-style): hyperparameters,
    slots, per-device coefficients, Keras's epsilon, the gen wrappers math_ops holds."""
    ops = _private(tf, "framework.ops")
    backend_config = _private(tf, "keras.backend_config")
    optimizer_v2 = _private(tf, "keras.optimizer_v2.optimizer_v2")
    math_ops = _private(tf, "ops.math_ops")
    state_ops = _private(tf, "ops.state_ops")
    control_flow_ops = _private(tf, "ops.control_flow_ops")

    class NormalizedMomentum(optimizer_v2.OptimizerV2):
        def __init__(self, learning_rate=0.05, momentum=0.5, name="NormalizedMomentum"):
            super().__init__(name)
            self._set_hyper("learning_rate", learning_rate)
            self._set_hyper("momentum", momentum)
            self.epsilon = backend_config.epsilon()

        def _create_slots(self, var_list):
            for var in var_list:
                self.add_slot(var, "velocity")

        def _prepare_local(self, var_device, var_dtype, apply_state):
            super()._prepare_local(var_device, var_dtype, apply_state)
            apply_state[(var_device, var_dtype)].update(
                dict(
                    momentum=tf.identity(self._get_hyper("momentum", var_dtype)),
                    epsilon=ops.convert_to_tensor_v2(self.epsilon, var_dtype),
                )
            )

        def _resource_apply_dense(self, grad, var, apply_state=None):
            coefficients = (apply_state or {}).get(
                (var.device, var.dtype.base_dtype)
            ) or self._fallback_apply_state(var.device, var.dtype.base_dtype)
            velocity = self.get_slot(var, "velocity")
            norm = math_ops.euclidean_norm(grad, axis=list(range(len(grad.shape))))
            step = grad / (norm + coefficients["epsilon"])
            v_t = state_ops.assign(velocity, coefficients["momentum"] * velocity + step)
            update = state_ops.assign_sub(var, coefficients["lr_t"] * v_t)
            return control_flow_ops.group(update, v_t)

        def get_config(self):
            config = super().get_config()
            config.update({"momentum": self._serialize_hyperparameter("momentum")})
            return config

    return NormalizedMomentum


@case
def a_program_keras_optimizer_v2_subclass(tf):
    """A Keras OptimizerV2 subclass from tensorflow.python.keras.optimizer_v2 on resource
    variables, applied to tf.gradients: losses, variables (hyperparameters, iterations,
    slots) and its config."""
    optimizer_class = _keras_optimizer_class(tf)
    rng = np.random.RandomState(1)
    x = tf.constant(rng.randn(6, 3).astype(np.float32))
    y = tf.constant(rng.randn(6, 1).astype(np.float32))
    with tf.variable_scope("model", use_resource=True):
        w = tf.get_variable("w", [3, 2])
        b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
        w2 = tf.get_variable("w2", [2, 1])
    params = [w, b, w2]
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.nn.relu(tf.matmul(x, w) + b), w2) - y))
    opt = optimizer_class(0.05, 0.5)
    train = opt.apply_gradients(zip(tf.gradients(loss, params), params))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [float(sess.run([loss, train])[0]) for _ in range(4)]
        values = sess.run({v.op.name: v for v in tf.global_variables()})
    config = {k: (float(v) if isinstance(v, float) else v) for k, v in opt.get_config().items()}
    return {
        "losses": losses,
        "variables": {k: np.asarray(v).tolist() for k, v in sorted(values.items())},
        "config": config,
    }
