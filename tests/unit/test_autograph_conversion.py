"""tf.autograph: the source conversion of Python control flow over tensors, what it refuses
clearly, and the directives (do_not_convert, set_loop_options)."""

from __future__ import annotations

import numpy as np
import pytest
import tfcluster as tf
from tfcluster.lib.autograph.conversion import AutographNotSupportedError


def _run(fetch: object) -> object:
    with tf.Session() as s:
        return s.run(fetch)


def test_a_tensor_if_becomes_a_cond_and_a_python_if_stays_python() -> None:
    def relu_or_not(x, flag):
        if flag:
            y = x * 10.0
        else:
            y = x
        if tf.reduce_sum(y) > 0:
            y = tf.nn.relu(y)
        else:
            y = -y
        return y

    with tf.Graph().as_default() as g:
        f = tf.autograph.to_graph(relu_or_not)
        pos = f(tf.constant([1.0, -0.5]), True)
        neg = f(tf.constant([-1.0, 0.5]), False)
        types = {op.type for op in g.get_operations()}
        assert types & {"If", "StatelessIf"}
        np.testing.assert_allclose(_run([pos, neg]), [[10.0, 0.0], [1.0, -0.5]])


def test_loops_over_tensors_and_ranges_become_while_loops() -> None:
    def total(n, xs):
        s = tf.constant(0)
        for i in tf.range(n):
            s += i
        for x in xs:
            s += x
        k = 0
        while k < n:
            k += 2
        return s, k

    with tf.Graph().as_default():
        s, k = tf.autograph.to_graph(total)(tf.constant(5), tf.constant([10, 20]))
        assert _run([s, k]) == [40, 6]


def test_boolean_operators_on_tensors_are_logical_ops() -> None:
    def both(a, b):
        return (a and b, a or b, not a)

    with tf.Graph().as_default():
        out = tf.autograph.to_graph(both)(tf.constant(True), tf.constant(False))
        assert _run(list(out)) == [False, True, False]
        assert tf.autograph.to_graph(both)(1, 0) == (0, 1, False)


def test_a_name_set_in_one_branch_of_a_tensor_cond_is_refused() -> None:
    def half(x):
        if x > 0:
            y = x
        return y

    with tf.Graph().as_default(), pytest.raises(ValueError, match="must also be initialized"):
        tf.autograph.to_graph(half)(tf.constant(1.0))


@pytest.mark.parametrize(
    "source_kind",
    ["break", "else", "return_in_loop", "yield"],
)
def test_constructs_left_unconverted_raise_naming_the_construct(source_kind: str) -> None:
    def with_break(x):
        while x > 0:
            x -= 1
            break
        return x

    def with_else(x):
        for i in range(3):
            x += i
        else:
            x = 0
        return x

    def return_in_loop(x):
        while x > 0:
            return x
        return x

    def generator(x):
        yield x

    fn = {
        "break": with_break,
        "else": with_else,
        "return_in_loop": return_in_loop,
        "yield": generator,
    }[source_kind]
    with pytest.raises(AutographNotSupportedError):
        tf.autograph.to_graph(fn)


def test_do_not_convert_and_to_code() -> None:
    @tf.autograph.experimental.do_not_convert
    def plain(x):
        if x > 0:
            return 1
        return 2

    assert tf.autograph.to_graph(plain) is plain

    def f(x):
        while x < 10:
            tf.autograph.experimental.set_loop_options(parallel_iterations=1)
            x = x * 2
        return x

    code = tf.autograph.to_code(f)
    assert "ag__.while_stmt" in code and "'parallel_iterations': 1" in code
    with tf.Graph().as_default():
        assert _run(tf.autograph.to_graph(f)(tf.constant(3))) == 12
    assert tf.autograph.experimental.Feature.ALL.value == "ALL"
    tf.autograph.set_verbosity(3)
