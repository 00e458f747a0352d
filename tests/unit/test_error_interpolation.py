"""A failed step's error names the line of the program that made the failing op, as TF's
client does with the runtime's `{{node x}}` tag, whichever task ran the op."""

from __future__ import annotations

import os
import socket

import pytest
import tfcluster as tf
from tfcluster.framework import error_interpolation


def _line_of(marker: str) -> int:
    with open(__file__) as f:
        for number, line in enumerate(f, 1):
            if marker in line and "_line_of" not in line:
                return number
    raise AssertionError(marker)


def test_the_defining_line_is_the_programs_not_the_librarys() -> None:
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, name="x")  # the defining line
        y = x * 2.0
    with tf.Session(graph=g) as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(y)
    error = info.value
    line = _line_of("# the defining line")
    assert error.message.endswith(f"test_error_interpolation.py:{line}) ]]")
    assert "[[node x (defined at " in error.message
    assert error.op is x.op and error.node_def.name == "x"
    text = str(error)
    assert text.startswith(error.message + "\n\nOriginal stack trace for 'x':\n")
    assert 'x = tf.placeholder(tf.float32, name="x")  # the defining line' in text
    # The stack names whole files, as TF's OpError.__str__ (format_list of op.traceback).
    assert f'File "{os.path.abspath(__file__)}", line {line}' in text


def test_a_message_naming_no_node_of_the_graph_is_left_as_it_is() -> None:
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0, name="c")
    message = "went wrong\n\t [[{{node elsewhere}}]]"
    assert error_interpolation.interpolate(message, g) == message
    error = tf.errors.InternalError(None, None, message)
    assert error_interpolation.with_graph_context(error, g) is error
    assert str(error) == message


def test_function_node_tags_are_dropped_and_node_tags_expanded() -> None:
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0, name="c")  # made here
    text = error_interpolation.interpolate("bad {{function_node __inference_f_1}}{{node c}}", g)
    line = _line_of("# made here")
    assert text.startswith("bad node c (defined at ")
    assert text.endswith(f"test_error_interpolation.py:{line}) ")


@pytest.mark.timeout(60)
def test_an_error_on_another_task_names_the_clients_line() -> None:
    ports = []
    for _ in range(2):
        with socket.socket() as sock:
            sock.bind(("localhost", 0))
            ports.append(sock.getsockname()[1])
    spec = tf.train.ClusterSpec({"worker": [f"localhost:{p}" for p in ports]})
    servers = [tf.train.Server(spec, job_name="worker", task_index=i) for i in range(2)]
    try:
        g = tf.Graph()
        with g.as_default(), tf.device("/job:worker/task:1"):
            x = tf.placeholder(tf.float32, [None], name="feed_me")
            y = tf.reshape(x, [2, 2], name="square")  # on the other task
        with tf.Session(servers[0].target, graph=g) as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(y, {x: [1.0, 2.0, 3.0]})
            assert sess.run(y, {x: [1.0, 2.0, 3.0, 4.0]}).shape == (2, 2)  # still serving
    finally:
        for server in servers:
            server.stop()
    line = _line_of("# on the other task")
    assert "[[node square (defined at " in info.value.message
    assert info.value.message.endswith(f"test_error_interpolation.py:{line}) ]]")
    assert info.value.op is y.op
