"""tf.keras.preprocessing.text"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.keras.preprocessing.text import (
    Tokenizer,
    hashing_trick,
    one_hot,
    text_to_word_sequence,
)

__getattr__ = _unimplemented.module_getattr("keras.preprocessing.text")
