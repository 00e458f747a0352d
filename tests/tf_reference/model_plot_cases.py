"""tf.keras.utils.model_to_dot (TF 1.15's vis_utils) as plain data: the graph's attributes,
each node's label (the layer's name and class, with the input/output shape table under
show_shapes) and the edges between layers, for a Sequential, a functional model with a shared
layer and two inputs, a nested model (as one node, and expanded into a dashed cluster), a
TimeDistributed wrapper and a subclassed model. The machine has no graphviz (`dot`), whose
check TF runs first: the cases replace the check to compare the graph built, and record
TF's ImportError with the check failing. Node ids are layers' ids(), so nodes are named by
label. Written once for TF 1.15 (record_model_plot.py, pydot 1.4.2 installed in its venv)
and tfcluster (tests/unit/test_model_plot.py); kept runnable on Python 3.7."""

import contextlib
import sys

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True)


@contextlib.contextmanager
def _graphviz_check(tf, result):
    """The vis_utils module's check of pydot and graphviz answering `result`."""
    module = sys.modules[tf.keras.utils.model_to_dot.__module__]
    saved = module.check_pydot
    module.check_pydot = lambda: result
    try:
        yield
    finally:
        module.check_pydot = saved


def _plain(value):
    text = str(value)
    return text[1:-1] if len(text) > 1 and text[0] == text[-1] == '"' else text


def _graph(dot):
    labels = {}

    def walk(graph, prefix):
        out = {"nodes": [], "subgraphs": []}
        for node in graph.get_nodes():
            name = _plain(node.get_name())
            if name in ("node", "edge", "graph"):
                continue
            label = _plain(node.get("label"))
            labels[name] = label
            out["nodes"].append(label)
        for sub in graph.get_subgraphs():
            out["subgraphs"].append(
                {
                    "label": _plain(sub.get("label")),
                    "style": _plain(sub.get("style")),
                    **walk(sub, prefix + 1),
                }
            )
        return out

    out = walk(dot, 0)
    out["edges"] = [
        [labels.get(_plain(e.get_source())), labels.get(_plain(e.get_destination()))]
        for e in dot.get_edges()
    ]
    out["attributes"] = {k: _plain(dot.get(k)) for k in ("rankdir", "concentrate", "dpi")}
    return out


def _dot(tf, model, **kwargs):
    with _graphviz_check(tf, True):
        return _graph(tf.keras.utils.model_to_dot(model, **kwargs))


def _functional(tf):
    K = tf.keras
    a = K.Input((4,), name="a")
    b = K.Input((4,), name="b")
    shared = K.layers.Dense(3, name="shared")
    merged = K.layers.concatenate([shared(a), shared(b)], name="merge")
    return K.Model([a, b], K.layers.Dense(1, name="out")(merged), name="two_inputs")


@case
def sequential_plain_and_with_shapes(tf):
    K = tf.keras
    model = K.Sequential(
        [K.layers.Dense(4, input_shape=(3,), name="d1"), K.layers.Dense(2, name="d2")]
    )
    return {
        "plain": _dot(tf, model),
        "shapes_lr": _dot(tf, model, show_shapes=True, rankdir="LR", dpi=72),
        "no_names": _dot(tf, model, show_layer_names=False),
    }


@case
def functional_with_a_shared_layer(tf):
    return {"dot": _dot(tf, _functional(tf), show_shapes=True)}


@case
def nested_model_and_wrapper(tf):
    K = tf.keras
    inner = _functional(tf)
    x = K.Input((4,), name="x")
    y = K.Input((4,), name="y")
    outer = K.Model([x, y], K.layers.Dense(2, name="top")(inner([x, y])), name="outer")
    seq = K.Input((5, 3), name="seq")
    wrapped = K.Model(seq, K.layers.TimeDistributed(K.layers.Dense(2, name="td_inner"))(seq))
    return {
        "collapsed": _dot(tf, outer),
        "expanded": _dot(tf, outer, expand_nested=True),
        "wrapper": _dot(tf, wrapped, show_shapes=True),
    }


@case
def subclassed_model_is_one_node(tf):
    class Small(tf.keras.Model):
        def __init__(self):
            super().__init__(name="small")
            self.d = tf.keras.layers.Dense(1)

        def call(self, x):
            return self.d(x)

    return {"dot": _dot(tf, Small())}


@case
def without_graphviz(tf):
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
    with _graphviz_check(tf, False):
        try:
            tf.keras.utils.plot_model(model, to_file="/nonexistent/model.png")
            return {"raised": None}
        except ImportError as e:
            return {"raised": [type(e).__name__, str(e)]}
