"""The graph ops tf.data input code makes: names of padded_batch's constants and of the
iterator ops, and TF 1.15's op count (which seeds later random ops) after from_generator and
make_initializable_iterator. Runs under Python 3.7 (TF 1.15) too.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _ops(graph: Any, start: int = 0) -> list[str]:
    return [f"{op.type}:{op.name}" for op in graph.get_operations()[start:]]


def _count(graph: Any) -> int:
    return graph._op_count() if hasattr(graph, "_op_count") else graph._last_id


def padded_batch_and_reinitializable_iterator(tf: Any) -> dict[str, Any]:
    graph = tf.Graph()
    with graph.as_default():
        data = tf.data.Dataset.from_tensor_slices(
            (np.arange(6, dtype=np.int32).reshape(3, 2), [1, 2, 3])
        )
        start = len(graph.get_operations())
        data = data.padded_batch(2, ([None], []), (0, 0)).prefetch(1)
        iterator = tf.data.Iterator.from_structure(data.output_types, data.output_shapes)
        iterator.get_next()
        iterator.make_initializer(data)
        iterator.make_initializer(data, name="again")
        return {"ops": _ops(graph, start)}


def initializable_iterator_names(tf: Any) -> dict[str, Any]:
    graph = tf.Graph()
    with graph.as_default():
        data = tf.data.Dataset.range(4)
        start = len(graph.get_operations())
        iterator = data.make_initializable_iterator()
        iterator.get_next()
        ops = [op for op in _ops(graph, start) if "Optimize" not in op and "Model" not in op]
        return {"ops": [op for op in ops if op != "Const:optimizations"]}


def _seeded_after(tf: Any, build: Any) -> dict[str, Any]:
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(3)
        build(tf)
        count = _count(graph)
        after = tf.random_uniform([3])
        with tf.Session() as sess:
            return {"op_count": count, "after": sess.run(after)}


def count_after_from_generator(tf: Any) -> dict[str, Any]:
    def gen(a: Any, b: Any) -> Any:
        yield 1

    return _seeded_after(
        tf, lambda tf: tf.data.Dataset.from_generator(gen, tf.int64, args=([b"a"], b"p"))
    )


def count_after_initializable_iterator(tf: Any) -> dict[str, Any]:
    return _seeded_after(tf, lambda tf: tf.data.Dataset.range(3).make_initializable_iterator())


CASES = {
    f.__name__: f
    for f in (
        padded_batch_and_reinitializable_iterator,
        initializable_iterator_names,
        count_after_from_generator,
        count_after_initializable_iterator,
    )
}
