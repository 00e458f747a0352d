"""GraphDefs whose nodes do not fit their ops, imported: TF's importer checks each NodeDef
against its op's OpDef (an attr the op does not have, an attr missing without a default, a
value of the wrong kind or not allowed, the wrong number of inputs) and each input's dtype
against the one the op expects, and refuses the GraphDef with a ValueError whose message
names the node and summarizes the op. Runs under Python 3.7 (TF 1.15) too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES: dict = {}
case = registrar(CASES)


def _import_error(
    tf: Any, build: Callable[[Any], None], edit: Callable[[Any], None], name: str = ""
) -> dict[str, Any]:
    """Builds a graph, edits its GraphDef, imports it under `name`: the error's class and
    whole message (None when the import succeeds, with the ops it made)."""
    graph = tf.Graph()
    with graph.as_default():
        build(tf)
    graph_def = graph.as_graph_def()
    edit(graph_def)
    target = tf.Graph()
    with target.as_default():
        try:
            tf.import_graph_def(graph_def, name=name)
        except Exception as e:  # the class and message are what is compared
            return {"error": type(e).__name__, "message": str(e)}
    return {"error": None, "ops": [op.type for op in target.get_operations()]}


def _node(graph_def: Any, name: str) -> Any:
    return next(n for n in graph_def.node if n.name == name)


def _identity(tf: Any) -> None:
    a = tf.constant([1.0, 2.0], name="a")
    tf.identity(a, name="b")


def _matmul(tf: Any) -> None:
    a = tf.constant([[1.0, 2.0]], name="a")
    tf.matmul(a, a, transpose_b=True, name="b")


def _conv(tf: Any) -> None:
    x = tf.zeros([1, 4, 4, 1], name="x")
    w = tf.zeros([2, 2, 1, 1], name="w")
    tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", name="b")


def _add_n(tf: Any) -> None:
    a = tf.constant(1.0, name="a")
    tf.add_n([a, a, a], name="b")


def _variable(tf: Any) -> None:
    v = tf.Variable(1.0, name="v")
    tf.assign(v, 2.0, name="b")


def _concat(tf: Any) -> None:
    a = tf.constant([1.0], name="a")
    tf.concat([a, a], 0, name="b")


def _set_int(node: Any, attr: str, value: int) -> None:
    node.attr[attr].i = value


@case
def unknown_attr_on_identity(tf: Any) -> dict[str, Any]:
    return _import_error(tf, _identity, lambda g: _set_int(_node(g, "b"), "foo", 3))


@case
def unknown_attr_under_an_import_scope(tf: Any) -> dict[str, Any]:
    return _import_error(
        tf, _identity, lambda g: _set_int(_node(g, "b"), "foo", 3), name="imported"
    )


@case
def unknown_attr_on_matmul(tf: Any) -> dict[str, Any]:
    return _import_error(tf, _matmul, lambda g: _set_int(_node(g, "b"), "alpha", 1))


@case
def unknown_attr_on_conv2d(tf: Any) -> dict[str, Any]:
    return _import_error(tf, _conv, lambda g: _set_int(_node(g, "b"), "groups", 1))


@case
def unknown_attr_on_add_n(tf: Any) -> dict[str, Any]:
    return _import_error(tf, _add_n, lambda g: _set_int(_node(g, "b"), "extra", 1))


@case
def unknown_attr_on_assign(tf: Any) -> dict[str, Any]:
    return _import_error(tf, _variable, lambda g: _set_int(_node(g, "b"), "extra", 1))


@case
def unknown_attr_on_variable(tf: Any) -> dict[str, Any]:
    return _import_error(tf, _variable, lambda g: _set_int(_node(g, "v"), "extra", 1))


@case
def unknown_attr_on_concat(tf: Any) -> dict[str, Any]:
    return _import_error(tf, _concat, lambda g: _set_int(_node(g, "b"), "extra", 1))


@case
def unknown_underscore_attr_is_kept(tf: Any) -> dict[str, Any]:
    return _import_error(tf, _identity, lambda g: _set_int(_node(g, "b"), "_extra", 1))


def _drop(node: Any, attr: str) -> None:
    del node.attr[attr]


@case
def missing_type_attr(tf: Any) -> dict[str, Any]:
    return _import_error(tf, _identity, lambda g: _drop(_node(g, "b"), "T"))


@case
def missing_attr_with_a_default_is_added(tf: Any) -> dict[str, Any]:
    return _import_error(tf, _matmul, lambda g: _drop(_node(g, "b"), "transpose_a"))


@case
def missing_strides(tf: Any) -> dict[str, Any]:
    return _import_error(tf, _conv, lambda g: _drop(_node(g, "b"), "strides"))


@case
def missing_number_attr(tf: Any) -> dict[str, Any]:
    return _import_error(tf, _add_n, lambda g: _drop(_node(g, "b"), "N"))


@case
def type_attr_not_allowed(tf: Any) -> dict[str, Any]:
    def edit(g: Any) -> None:
        _node(g, "b").attr["T"].type = tf.string.as_datatype_enum

    return _import_error(tf, _matmul, edit)


@case
def type_attr_set_to_an_int(tf: Any) -> dict[str, Any]:
    def edit(g: Any) -> None:
        _node(g, "b").attr["T"].i = 3

    return _import_error(tf, _identity, edit)


@case
def string_attr_not_allowed(tf: Any) -> dict[str, Any]:
    def edit(g: Any) -> None:
        _node(g, "b").attr["padding"].s = b"SOMETIMES"

    return _import_error(tf, _conv, edit)


@case
def number_attr_below_its_minimum(tf: Any) -> dict[str, Any]:
    def edit(g: Any) -> None:
        node = _node(g, "b")
        node.attr["N"].i = 0
        del node.input[:]

    return _import_error(tf, _add_n, edit)


@case
def input_dtype_other_than_the_type_attr(tf: Any) -> dict[str, Any]:
    def edit(g: Any) -> None:
        _node(g, "b").attr["T"].type = tf.string.as_datatype_enum

    return _import_error(tf, _identity, edit)


@case
def input_dtype_other_than_a_fixed_type(tf: Any) -> dict[str, Any]:
    def build(tf: Any) -> None:
        a = tf.constant([1.0, 2.0], name="a")
        tf.logical_not(tf.cast(a, tf.bool, name="c"), name="b")

    def edit(g: Any) -> None:
        _node(g, "b").input[0] = "a"

    return _import_error(tf, build, edit)


@case
def input_dtype_mismatch_under_an_import_scope(tf: Any) -> dict[str, Any]:
    def edit(g: Any) -> None:
        _node(g, "b").attr["T"].type = tf.int32.as_datatype_enum

    return _import_error(tf, _identity, edit, name="imported")


@case
def second_input_of_a_list_mismatched(tf: Any) -> dict[str, Any]:
    def build(tf: Any) -> None:
        a = tf.constant(1.0, name="a")
        tf.constant(1, name="i")
        tf.add_n([a, a, a], name="b")

    def edit(g: Any) -> None:
        _node(g, "b").input[1] = "i"

    return _import_error(tf, build, edit)


@case
def too_many_inputs(tf: Any) -> dict[str, Any]:
    def edit(g: Any) -> None:
        _node(g, "b").input.append("a")

    return _import_error(tf, _identity, edit)


@case
def too_few_inputs(tf: Any) -> dict[str, Any]:
    def edit(g: Any) -> None:
        del _node(g, "b").input[1]

    return _import_error(tf, _matmul, edit)


@case
def unknown_input_node(tf: Any) -> dict[str, Any]:
    def edit(g: Any) -> None:
        _node(g, "b").input[0] = "zz"

    return _import_error(tf, _identity, edit)


@case
def unknown_input_node_under_an_import_scope(tf: Any) -> dict[str, Any]:
    def edit(g: Any) -> None:
        _node(g, "b").input[0] = "zz:1"

    return _import_error(tf, _identity, edit, name="imported")


@case
def input_index_out_of_range(tf: Any) -> dict[str, Any]:
    def edit(g: Any) -> None:
        _node(g, "b").input[0] = "a:3"

    return _import_error(tf, _identity, edit)


@case
def unknown_control_input_node(tf: Any) -> dict[str, Any]:
    def edit(g: Any) -> None:
        _node(g, "b").input.append("^zz")

    return _import_error(tf, _identity, edit)
