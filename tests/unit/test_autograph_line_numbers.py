"""Code AutoGraph converts keeps the lines of its file: an error raised in a tf.function's body
shows the program's own line in its traceback (TF's source maps do the same)."""

from __future__ import annotations

import traceback

import pytest
import tfcluster as tf


def _raising(x: tf.Tensor) -> tf.Tensor:
    if x is not None:
        raise ValueError("from the body")
    return x


RAISING_LINE = _raising.__code__.co_firstlineno + 2


def test_an_error_in_a_converted_body_names_the_files_line() -> None:
    fn = tf.function(_raising)
    with tf.Graph().as_default(), pytest.raises(ValueError) as info:
        fn(tf.constant(1.0))
    frames = traceback.extract_tb(info.value.__traceback__)
    last = frames[-1]
    assert last.filename == __file__
    assert last.lineno == RAISING_LINE
    assert last.line is not None and "from the body" in last.line
