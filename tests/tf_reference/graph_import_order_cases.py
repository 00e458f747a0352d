"""GraphDefs whose nodes are listed in various orders, imported: the order the ops come out.

TF's importer creates a node as soon as its inputs exist, taking the ready node listed first
in the GraphDef: a GraphDef in creation order (as TF writes one) keeps that order, which
`get_operations()` after `import_meta_graph` shows. Runs under Python 3.7 (TF 1.15) too.
"""

from __future__ import annotations

from typing import Any


def _graph_def(tf: Any) -> Any:
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        w = tf.constant([1.0, 2.0], name="w")
        with tf.name_scope("loss"):
            y = tf.multiply(x, w, name="mul")
            z = tf.reduce_sum(y, name="sum")
        b = tf.constant(3.0, name="b")
        tf.add(z, b, name="out")
        tf.negative(x, name="neg")
        tf.identity(w, name="w_copy")
    return graph.as_graph_def()


def _imported_order(tf: Any, reorder: Any) -> dict[str, Any]:
    graph_def = _graph_def(tf)
    nodes = list(graph_def.node)
    del graph_def.node[:]
    graph_def.node.extend(reorder(nodes))
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    return {"names": [op.name for op in graph.get_operations()]}


def in_creation_order(tf: Any) -> dict[str, Any]:
    return _imported_order(tf, lambda nodes: nodes)


def reversed_order(tf: Any) -> dict[str, Any]:
    return _imported_order(tf, lambda nodes: nodes[::-1])


def sorted_by_name(tf: Any) -> dict[str, Any]:
    return _imported_order(tf, lambda nodes: sorted(nodes, key=lambda n: n.name))


CASES = {f.__name__: f for f in (in_creation_order, reversed_order, sorted_by_name)}
