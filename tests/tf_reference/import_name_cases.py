"""import_graph_def into a graph that already holds the GraphDef's names, as TF 1.15's
importer uniquifies them ('a' -> 'a_1', 'b/y' -> 'b/y_1'), inputs and return_elements
following; names that do not clash stay. Recorded by record_import_names.py;
tests/unit/test_import_names.py compares.

Python 3.7 code (the recorder runs under TF 1.15).
"""

try:
    from tf_reference.case_tools import registrar
except ImportError:  # the recorder, run from tests/tf_reference under TF 1.15
    from case_tools import registrar

CASES = {}
case = registrar(CASES, own_graph=True)


def _graph_def(tf):
    with tf.Graph().as_default() as g:
        a = tf.constant(1.0, name="a")
        tf.add(a, 2.0, name="b")
        return g.as_graph_def()


@case
def imported_twice_without_a_prefix(tf):
    gd = _graph_def(tf)
    first = tf.import_graph_def(gd, name="", return_elements=["b:0"])[0]
    second = tf.import_graph_def(gd, name="", return_elements=["b:0", "a"])
    ops = [[op.name, [t.name for t in op.inputs]] for op in tf.get_default_graph().get_operations()]
    later = tf.constant(0.0, name="a")
    with tf.Session() as sess:
        values = sess.run([first, second[0]])
    return {
        "ops": ops,
        "returned": [first.name, second[0].name, second[1].name],
        "later": later.name,
        "values": [float(v) for v in values],
    }


@case
def names_that_do_not_clash_stay(tf):
    tf.constant(5.0, name="b_1")
    out = tf.import_graph_def(_graph_def(tf), name="", return_elements=["b:0"])[0]
    return {"ops": [op.name for op in tf.get_default_graph().get_operations()], "out": out.name}
