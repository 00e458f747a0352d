"""tensorflow.python.saved_model: the SavedModel modules TF1 programs import by path
(`from tensorflow.python.saved_model import builder, signature_constants, tag_constants,
signature_def_utils, utils`), each tfcluster's module that does that job, and the package's
own names as TF 1.15 exports them (`load` and `save` are the object-graph (v2) functions,
`simple_save` the v1 one)."""

from tfcluster.lib.saved_model.load_v2 import load
from tfcluster.lib.saved_model.save import save
from tfcluster.python._alias import face_function
from tfcluster.python.saved_model import (
    builder,
    constants,
    loader,
    main_op,
    signature_constants,
    signature_def_utils,
    tag_constants,
    utils,
)

# TF's decorated simple_save, as tf.saved_model has it (its deprecation announced once).
simple_save = face_function("saved_model", "simple_save")

__all__ = [
    "builder",
    "constants",
    "load",
    "loader",
    "main_op",
    "save",
    "signature_constants",
    "signature_def_utils",
    "simple_save",
    "tag_constants",
    "utils",
]
