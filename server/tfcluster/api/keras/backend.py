"""tf.keras.backend"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.activations import (
    elu,
    hard_sigmoid,
    relu,
    sigmoid,
    softmax,
    softplus,
    softsign,
    tanh,
)
from tfcluster.lib.keras.backend import (
    abs,
    argmax,
    batch_get_value,
    batch_set_value,
    cast,
    cast_to_floatx,
    clear_session,
    clip,
    concatenate,
    constant,
    count_params,
    dot,
    dtype,
    epsilon,
    eval,
    exp,
    expand_dims,
    floatx,
    function,
    get_session,
    get_uid,
    get_value,
    gradients,
    image_data_format,
    int_shape,
    is_sparse,
    learning_phase,
    log,
    manual_variable_initialization,
    mean,
    name_scope,
    ndim,
    ones,
    placeholder,
    reset_uids,
    reshape,
    set_epsilon,
    set_floatx,
    set_image_data_format,
    set_learning_phase,
    set_session,
    set_value,
    shape,
    sqrt,
    square,
    squeeze,
    stop_gradient,
    sum,
    update,
    update_add,
    update_sub,
    variable,
    zeros,
)
from tfcluster.lib.keras.losses import (
    backend_binary_crossentropy as binary_crossentropy,
)
from tfcluster.lib.keras.losses import (
    backend_categorical_crossentropy as categorical_crossentropy,
)
from tfcluster.lib.keras.losses import (
    backend_sparse_categorical_crossentropy as sparse_categorical_crossentropy,
)

__getattr__ = _unimplemented.module_getattr("keras.backend")
