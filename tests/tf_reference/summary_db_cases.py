"""Programs writing TF 1.15's SQLite summary database through the raw ops (SummaryWriter +
CreateSummaryDbWriter + the Write* ops; TF 1.15 reaches it only so, or through tf.contrib),
and `dump(path)`: the database's content without its random ids and clock times (ids are
followed through the joins instead). record_summary_db.py runs them under TF 1.15,
tests/unit/test_summary_db.py on tfcluster. Python 3.7 code."""

import re
import sqlite3

import numpy as np

# Times before this are a program's own (an imported event's wall_time), later ones clocks.
_CLOCK = 1e9


def _session(tf, db, names, writes):
    """One writer opened on `db` as (experiment, run, user), `writes(w)` run, closed."""
    with tf.Graph().as_default():
        w = tf.raw_ops.SummaryWriter(shared_name="summary_db_case", container="")
        init = tf.raw_ops.CreateSummaryDbWriter(
            writer=w, db_uri=db, experiment_name=names[0], run_name=names[1], user_name=names[2]
        )
        step = tf.placeholder(tf.int64, [])
        ops = writes(tf, w, step)
        flush = tf.raw_ops.FlushSummaryWriter(writer=w)
        close = tf.raw_ops.CloseSummaryWriter(writer=w)
        with tf.Session() as sess:
            sess.run(init)
            for k in range(2):
                sess.run(ops, {step: k})
            sess.run(flush)
            sess.run(close)


def _metadata(tf):
    meta = tf.SummaryMetadata(display_name="Shown", summary_description="what it is")
    meta.plugin_data.plugin_name = "custom"
    meta.plugin_data.content = b"\x01\x02"
    return meta.SerializeToString()


def _summary_ops(tf, w, step):
    raw = tf.Summary(value=[tf.Summary.Value(tag="raw_simple", simple_value=2.5)])
    return [
        tf.raw_ops.WriteScalarSummary(writer=w, step=step, tag="loss", value=tf.constant(0.5)),
        tf.raw_ops.WriteScalarSummary(
            writer=w, step=step, tag="double", value=tf.constant(0.25, tf.float64)
        ),
        tf.raw_ops.WriteScalarSummary(writer=w, step=step, tag="int", value=tf.constant(7)),
        tf.raw_ops.WriteSummary(
            writer=w,
            step=step,
            tensor=tf.constant([[1, 2], [3, 4]], tf.int64),
            tag="matrix",
            summary_metadata=_metadata(tf),
        ),
        tf.raw_ops.WriteSummary(
            writer=w, step=step, tensor=tf.constant(["ab", "c"]), tag="words", summary_metadata=b""
        ),
        tf.raw_ops.WriteHistogramSummary(
            writer=w, step=step, tag="hist", values=tf.constant([1.0, 2.0, 2.5, -4.0])
        ),
        tf.raw_ops.WriteImageSummary(
            writer=w,
            step=step,
            tag="img",
            tensor=tf.reshape(tf.range(12, dtype=tf.float32) / 12.0, [2, 2, 3, 1]),
            bad_color=tf.constant([255], tf.uint8),
            max_images=3,
        ),
        tf.raw_ops.WriteAudioSummary(
            writer=w,
            step=step,
            tag="sound",
            tensor=tf.constant([[0.1, -0.2, 0.3]]),
            sample_rate=8000.0,
            max_outputs=3,
        ),
        tf.raw_ops.WriteRawProtoSummary(
            writer=w, step=step, tensor=tf.constant(raw.SerializeToString())
        ),
    ]


def _graph_ops(tf, w, step):
    # A GraphDef written field by field: the same bytes from either framework.
    gd = tf.GraphDef()
    gd.versions.producer = 134
    a = gd.node.add(name="a", op="Const")
    a.attr["dtype"].type = 1
    a.attr["value"].tensor.dtype = 1
    a.attr["value"].tensor.tensor_shape.SetInParent()
    a.attr["value"].tensor.float_val.append(1.0)
    b = gd.node.add(name="b", op="Add", input=["a", "a:0"])
    b.attr["T"].type = 1
    gd.node.add(name="c", op="NoOp", input=["^b"], device="/device:CPU:0")
    gd.node.add(name="d", op="Identity", input=["b:0", "^c"]).attr["T"].type = 1
    serialized = gd.SerializeToString()
    return [tf.raw_ops.WriteGraphSummary(writer=w, step=step, tensor=serialized)]


def _imported_event_ops(tf, w, step):
    event = tf.Event(
        step=5,
        wall_time=12.0,
        summary=tf.Summary(value=[tf.Summary.Value(tag="imported", simple_value=1.5)]),
    )
    return [
        tf.raw_ops.ImportEvent(writer=w, event=tf.constant(event.SerializeToString())),
        tf.raw_ops.WriteScalarSummary(writer=w, step=step, tag="x", value=1.0),
    ]


def every_summary_kind(tf, db):
    _session(tf, db, ("exp", "run1", "alice"), _summary_ops)


def graph(tf, db):
    _session(tf, db, ("exp", "run1", "alice"), _graph_ops)


def reopened_runs_and_anonymous_writers(tf, db):
    _session(tf, db, ("exp", "run1", "alice"), _imported_event_ops)
    _session(tf, db, ("exp", "run1", "alice"), _imported_event_ops)
    _session(tf, db, ("", "", ""), _imported_event_ops)
    _session(tf, db, ("e2", "r2", ""), _imported_event_ops)


CASES = {
    "every_summary_kind": every_summary_kind,
    "graph": graph,
    "reopened_runs_and_anonymous_writers": reopened_runs_and_anonymous_writers,
}


def _blob(value):
    return None if value is None else bytes(value).hex()


def dump(path):
    """The database as lists of rows, ids replaced by what they name."""
    c = sqlite3.connect(path)
    one = lambda sql, params=(): [list(r) for r in c.execute(sql, params)]  # noqa: E731
    out = {
        "schema": sorted(
            [t, n, re.sub(r"\s+", " ", s).replace("( ", "(").replace(" )", ")").strip()]
            for t, n, s in c.execute("SELECT type, name, sql FROM sqlite_master")
        ),
        "users": one("SELECT user_name, email FROM Users ORDER BY user_name"),
        "experiments": one(
            "SELECT u.user_name, e.experiment_name, e.is_watching, "
            "CASE WHEN e.started_time < ? THEN e.started_time END "
            "FROM Experiments e LEFT JOIN Users u ON u.user_id = e.user_id "
            "ORDER BY e.experiment_name",
            (_CLOCK,),
        ),
        "runs": one(
            "SELECT e.experiment_name, r.run_name, r.finished_time IS NOT NULL "
            "FROM Runs r LEFT JOIN Experiments e ON e.experiment_id = r.experiment_id "
            "ORDER BY r.run_name"
        ),
        "tags": one(
            "SELECT r.run_name, t.run_id IS NULL, t.tag_name, t.display_name, t.plugin_name, "
            "hex(t.plugin_data), d.description FROM Tags t "
            "LEFT JOIN Runs r ON r.run_id = t.run_id LEFT JOIN Descriptions d ON d.id = t.tag_id "
            "ORDER BY t.tag_name, t.run_id IS NULL, r.run_name"
        ),
        "tensors": [],
        "graphs": [],
        # Every id is drawn once and kept in Ids (replaced runs' ids too).
        "ids": one(
            "SELECT (SELECT count(*) FROM Ids), count(*) FROM (SELECT user_id AS id FROM Users "
            "UNION ALL SELECT experiment_id FROM Experiments UNION ALL SELECT run_id FROM Runs "
            "UNION ALL SELECT tag_id FROM Tags UNION ALL SELECT graph_id FROM Graphs) "
            "WHERE id NOT IN (SELECT id FROM Ids)"
        ),
    }
    rows = c.execute(
        "SELECT t.rowid, g.tag_name, r.run_name, t.step, t.dtype, t.shape, t.data, "
        "CASE WHEN t.computed_time < ? THEN t.computed_time END FROM Tensors t "
        "JOIN Tags g ON g.tag_id = t.series LEFT JOIN Runs r ON r.run_id = g.run_id "
        "WHERE t.step IS NOT NULL ORDER BY g.tag_name, g.run_id IS NULL, r.run_name, t.step",
        (_CLOCK,),
    ).fetchall()
    for rowid, tag, run, step, dtype, shape, data, when in rows:
        strings = [
            _blob(s)
            for (s,) in c.execute(
                "SELECT data FROM TensorStrings WHERE tensor_rowid = ? ORDER BY idx", (rowid,)
            )
        ]
        out["tensors"].append([tag, run, step, dtype, shape, _blob(data), strings, when])
    for graph_id, run, gd in c.execute(
        "SELECT g.graph_id, r.run_name, g.graph_def FROM Graphs g "
        "LEFT JOIN Runs r ON r.run_id = g.run_id ORDER BY g.rowid"
    ).fetchall():
        nodes = one(
            "SELECT node_id, node_name, op, device, hex(node_def) FROM Nodes "
            "WHERE graph_id = ? ORDER BY node_id",
            (graph_id,),
        )
        inputs = one(
            "SELECT node_id, idx, input_node_id, input_node_idx, is_control FROM NodeInputs "
            "WHERE graph_id = ? ORDER BY node_id, idx",
            (graph_id,),
        )
        out["graphs"].append([run, _blob(gd), nodes, inputs])
    c.close()
    return out


def float_rows(dumped):
    """Histogram and float tensors' data as numbers (compared to a tolerance)."""
    out = []
    for tag, _run, _step, dtype, _shape, data, _strings, _when in dumped["tensors"]:
        if data is not None and dtype in (1, 2):
            out.append([tag, np.frombuffer(bytes.fromhex(data), {1: "<f4", 2: "<f8"}[dtype])])
    return out
