"""The SQLite summary database of CreateSummaryDbWriter, in TF 1.15's schema
(summary_db_writer.cc): Users, Experiments, Runs, Tags (with Descriptions), Tensors (with
TensorStrings for string tensors), Graphs, Nodes and NodeInputs, every id drawn at random and
kept in Ids.

A writer adds its user, experiment and run on its first write (a run of the same name
replaces the experiment's earlier one, as TF's INSERT OR REPLACE does). Each summary value is
one Tensors row of its tag's series at a step: simple values as float32 scalars, histograms
as [k, 3] float64 (left edge, right edge, count), images as [width, height, encoded],
audio as [[encoded, ""]], tensors as they are; a scalar written by WriteScalarSummary keeps
its dtype. TF also pre-allocates empty Tensors rows per series for speed; this writer does
not (readers select rows by series and step).
"""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from typing import Any

import numpy as np

from tfcluster.framework import dtypes, errors, tensor_util
from tfcluster.protos import event_pb2, graph_pb2, node_def_pb2, summary_pb2

# (table, columns) in TF's order; the indexes as (name, table, columns, condition).
_TABLES = (
    ("Ids", ("id INTEGER PRIMARY KEY",)),
    ("Descriptions", ("id INTEGER PRIMARY KEY", "description TEXT")),
    (
        "Tensors",
        (
            "rowid INTEGER PRIMARY KEY",
            "series INTEGER",
            "step INTEGER",
            "dtype INTEGER",
            "computed_time REAL",
            "shape TEXT",
            "data BLOB",
        ),
    ),
    (
        "TensorStrings",
        (
            "rowid INTEGER PRIMARY KEY",
            "tensor_rowid INTEGER NOT NULL",
            "idx INTEGER NOT NULL",
            "data BLOB",
        ),
    ),
    (
        "Tags",
        (
            "rowid INTEGER PRIMARY KEY",
            "run_id INTEGER",
            "tag_id INTEGER NOT NULL",
            "inserted_time DOUBLE",
            "tag_name TEXT",
            "display_name TEXT",
            "plugin_name TEXT",
            "plugin_data BLOB",
        ),
    ),
    (
        "Runs",
        (
            "rowid INTEGER PRIMARY KEY",
            "experiment_id INTEGER",
            "run_id INTEGER NOT NULL",
            "inserted_time REAL",
            "started_time REAL",
            "finished_time REAL",
            "run_name TEXT",
        ),
    ),
    (
        "Experiments",
        (
            "rowid INTEGER PRIMARY KEY",
            "user_id INTEGER",
            "experiment_id INTEGER NOT NULL",
            "inserted_time REAL",
            "started_time REAL",
            "is_watching INTEGER",
            "experiment_name TEXT",
        ),
    ),
    (
        "Users",
        (
            "rowid INTEGER PRIMARY KEY",
            "user_id INTEGER NOT NULL",
            "inserted_time REAL",
            "user_name TEXT",
            "email TEXT",
        ),
    ),
    (
        "Graphs",
        (
            "rowid INTEGER PRIMARY KEY",
            "run_id INTEGER",
            "graph_id INTEGER NOT NULL",
            "inserted_time REAL",
            "graph_def BLOB",
        ),
    ),
    (
        "Nodes",
        (
            "rowid INTEGER PRIMARY KEY",
            "graph_id INTEGER NOT NULL",
            "node_id INTEGER NOT NULL",
            "node_name TEXT",
            "op TEXT",
            "device TEXT",
            "node_def BLOB",
        ),
    ),
    (
        "NodeInputs",
        (
            "rowid INTEGER PRIMARY KEY",
            "graph_id INTEGER NOT NULL",
            "node_id INTEGER NOT NULL",
            "idx INTEGER NOT NULL",
            "input_node_id INTEGER NOT NULL",
            "input_node_idx INTEGER",
            "is_control INTEGER",
        ),
    ),
)
_INDEXES = (
    ("TensorSeriesStepIndex", "Tensors", "series, step", "series IS NOT NULL AND step IS NOT NULL"),
    ("TensorStringIndex", "TensorStrings", "tensor_rowid, idx", ""),
    ("TagIdIndex", "Tags", "tag_id", ""),
    ("TagRunNameIndex", "Tags", "run_id, tag_name", "run_id IS NOT NULL AND tag_name IS NOT NULL"),
    ("RunIdIndex", "Runs", "run_id", ""),
    ("RunNameIndex", "Runs", "experiment_id, run_name", "run_name IS NOT NULL"),
    ("ExperimentIdIndex", "Experiments", "experiment_id", ""),
    (
        "ExperimentNameIndex",
        "Experiments",
        "user_id, experiment_name",
        "experiment_name IS NOT NULL",
    ),
    ("UserIdIndex", "Users", "user_id", ""),
    ("UserNameIndex", "Users", "user_name", "user_name IS NOT NULL"),
    ("UserEmailIndex", "Users", "email", "email IS NOT NULL"),
    ("GraphIdIndex", "Graphs", "graph_id", ""),
    ("GraphRunIndex", "Graphs", "run_id", "run_id IS NOT NULL"),
    ("NodeIdIndex", "Nodes", "graph_id, node_id", ""),
    ("NodeNameIndex", "Nodes", "graph_id, node_name", "node_name IS NOT NULL"),
    ("NodeInputsIndex", "NodeInputs", "graph_id, node_id, idx", ""),
)


def _schema() -> str:
    parts = [f"CREATE TABLE IF NOT EXISTS {t} ({', '.join(cols)});" for t, cols in _TABLES]
    for name, table, cols, where in _INDEXES:
        cond = f" WHERE {where}" if where else ""
        parts.append(f"CREATE UNIQUE INDEX IF NOT EXISTS {name} ON {table} ({cols}){cond};")
    return "\n".join(parts)


# TF draws ids from a small range first, a larger one when ids collide (fewer digits in
# the common case, no collisions as the table grows).
_ID_TIERS = (1 << 23, 1 << 31, 1 << 52)
_COMMIT_EVERY = 100
_DBL_MIN = float(np.finfo(np.float64).tiny)


def _invalid(message: str) -> errors.OpError:
    return errors.InvalidArgumentError(None, None, message)


class SummaryDb:
    """One writer's connection: its user, experiment and run, and the ids of its tags."""

    def __init__(self, uri: str, experiment: str, run: str, user: str) -> None:
        path = uri[len("file:") :] if uri.startswith("file:") else uri
        try:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.executescript(_schema())
        except sqlite3.Error as e:
            raise errors.UnknownError(None, None, f"Could not open {uri}: {e}") from None
        self._lock = threading.Lock()
        self._names = (experiment, run, user)
        self._run_id: int | None = None
        self._experiment_id: int | None = None
        self._started = False
        self._tags: dict[str, int] = {}
        self._pending = 0
        self._closed = False

    # ---- ids and the run ------------------------------------------------------------------
    def _new_id(self) -> int:
        for tier in _ID_TIERS:
            for _ in range(10):
                candidate = random.randrange(1, tier)
                try:
                    self._db.execute("INSERT INTO Ids (id) VALUES (?)", (candidate,))
                    return candidate
                except sqlite3.IntegrityError:
                    continue
        raise errors.InternalError(None, None, "Could not draw a new summary database id")

    def _begin(self) -> None:
        if not self._started:
            self._db.execute("BEGIN")
            self._started = True

    def _ensure_run(self, now: float) -> None:
        if self._run_id is not None or self._experiment_id is not None:
            return
        experiment, run, user = self._names
        user_id = None
        if user:
            row = self._db.execute(
                "SELECT user_id FROM Users WHERE user_name = ?", (user,)
            ).fetchone()
            if row is None:
                user_id = self._new_id()
                self._db.execute(
                    "INSERT INTO Users (user_id, inserted_time, user_name) VALUES (?, ?, ?)",
                    (user_id, now, user),
                )
            else:
                user_id = row[0]
        if experiment:
            row = self._db.execute(
                "SELECT experiment_id FROM Experiments WHERE user_id IS ? AND experiment_name = ?",
                (user_id, experiment),
            ).fetchone()
            if row is None:
                self._experiment_id = self._new_id()
                self._db.execute(
                    "INSERT INTO Experiments (user_id, experiment_id, inserted_time, "
                    "started_time, is_watching, experiment_name) VALUES (?, ?, ?, ?, 0, ?)",
                    (user_id, self._experiment_id, now, now, experiment),
                )
            else:
                self._experiment_id = row[0]
        if run:
            self._run_id = self._new_id()
            self._db.execute(
                "INSERT OR REPLACE INTO Runs (experiment_id, run_id, inserted_time, "
                "started_time, run_name) VALUES (?, ?, ?, ?, ?)",
                (self._experiment_id, self._run_id, now, now, run),
            )

    def _started_by(self, when: float) -> None:
        """An event older than the run's start (an imported one) moves the start back."""
        if self._experiment_id is not None:
            self._db.execute(
                "UPDATE Experiments SET started_time = ? WHERE experiment_id = ? AND "
                "started_time > ?",
                (when, self._experiment_id, when),
            )
        if self._run_id is not None:
            self._db.execute(
                "UPDATE Runs SET started_time = ? WHERE run_id = ? AND started_time > ?",
                (when, self._run_id, when),
            )

    def _tag_id(self, tag: str, meta: summary_pb2.SummaryMetadata, plugin: str, now: float) -> int:
        found = self._tags.get(tag)
        if found is not None:
            return found
        row = None
        if self._run_id is not None:
            row = self._db.execute(
                "SELECT tag_id FROM Tags WHERE run_id = ? AND tag_name = ?", (self._run_id, tag)
            ).fetchone()
        if row is not None:
            tag_id = int(row[0])
        else:
            tag_id = self._new_id()
            self._db.execute(
                "INSERT INTO Tags (run_id, tag_id, inserted_time, tag_name, display_name, "
                "plugin_name, plugin_data) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    self._run_id,
                    tag_id,
                    now,
                    tag,
                    meta.display_name,
                    meta.plugin_data.plugin_name or plugin,
                    bytes(meta.plugin_data.content),
                ),
            )
            self._db.execute(
                "INSERT INTO Descriptions (id, description) VALUES (?, ?)",
                (tag_id, meta.summary_description),
            )
        self._tags[tag] = tag_id
        return tag_id

    # ---- writes ---------------------------------------------------------------------------
    def _locked_write(self, when: float, fn: Any) -> None:
        with self._lock:
            if self._closed:
                raise errors.FailedPreconditionError(None, None, "Summary writer is closed")
            try:
                self._begin()
                self._ensure_run(time.time())
                self._started_by(when)
                fn()
                self._pending += 1
                if self._pending >= _COMMIT_EVERY:
                    self._commit()
            except sqlite3.Error as e:
                raise errors.UnknownError(None, None, f"Summary database: {e}") from None

    def _insert_tensor(self, tag_id: int, step: int, when: float, value: np.ndarray) -> None:
        shape = ",".join(str(d) for d in value.shape)
        is_string = value.dtype == object or value.dtype.kind in "SU"
        if is_string:
            enum, data = dtypes.string.as_datatype_enum, None
        else:
            enum = dtypes.as_dtype(value.dtype).as_datatype_enum
            data = np.ascontiguousarray(value).astype(value.dtype.newbyteorder("<")).tobytes()
        old = self._db.execute(
            "SELECT rowid FROM Tensors WHERE series = ? AND step = ?", (tag_id, step)
        ).fetchone()
        if old is not None:  # the step written again replaces its value
            self._db.execute("DELETE FROM TensorStrings WHERE tensor_rowid = ?", (old[0],))
            self._db.execute("DELETE FROM Tensors WHERE rowid = ?", (old[0],))
        cursor = self._db.execute(
            "INSERT INTO Tensors (series, step, dtype, computed_time, shape, data) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (tag_id, step, enum, when, shape, data),
        )
        if is_string:
            items = [v if isinstance(v, bytes) else str(v).encode() for v in value.reshape(-1)]
            self._db.executemany(
                "INSERT INTO TensorStrings (tensor_rowid, idx, data) VALUES (?, ?, ?)",
                [(cursor.lastrowid, i, v) for i, v in enumerate(items)],
            )

    def write_tensor(
        self,
        step: int,
        when: float,
        tag: str,
        value: np.ndarray,
        meta: summary_pb2.SummaryMetadata | None = None,
        plugin: str = "",
    ) -> None:
        meta = meta if meta is not None else summary_pb2.SummaryMetadata()

        def write() -> None:
            tag_id = self._tag_id(tag, meta, plugin, time.time())
            self._insert_tensor(tag_id, step, when, np.asarray(value))

        self._locked_write(when, write)

    def write_event(self, event: event_pb2.Event) -> None:
        when = event.wall_time or time.time()
        if event.HasField("summary"):
            for v in event.summary.value:
                value, plugin = _value_tensor(v)
                if value is not None:
                    self.write_tensor(event.step, when, v.tag, value, v.metadata, plugin)
        elif event.graph_def:
            self._locked_write(when, lambda: self._insert_graph(event.graph_def, when))

    def _insert_graph(self, serialized: bytes, when: float) -> None:
        try:
            gd = graph_pb2.GraphDef.FromString(serialized)
        except Exception:
            raise _invalid("Could not parse the GraphDef of a graph summary") from None
        graph_id = self._new_id()
        ids = {nd.name: k for k, nd in enumerate(gd.node)}
        nodes = list(gd.node)
        del gd.node[:]
        self._db.execute(
            "INSERT OR REPLACE INTO Graphs (run_id, graph_id, inserted_time, graph_def) "
            "VALUES (?, ?, ?, ?)",
            (self._run_id, graph_id, when, gd.SerializeToString()),
        )
        node_rows = []
        input_rows = []
        for k, nd in enumerate(nodes):
            for idx, ref in enumerate(nd.input):
                control = ref.startswith("^")
                name, _, port = ref.lstrip("^").partition(":")
                if name not in ids:
                    raise _invalid(f"Graph summary: node '{nd.name}' reads unknown '{ref}'")
                input_rows.append((graph_id, k, idx, ids[name], int(port or 0), int(control)))
            attrs = node_def_pb2.NodeDef()
            for key in sorted(nd.attr):
                attrs.attr[key].CopyFrom(nd.attr[key])
            node_rows.append(
                (
                    graph_id,
                    k,
                    nd.name,
                    nd.op,
                    nd.device,
                    attrs.SerializeToString(deterministic=True),
                )
            )
        self._db.executemany(
            "INSERT INTO Nodes (graph_id, node_id, node_name, op, device, node_def) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            node_rows,
        )
        self._db.executemany(
            "INSERT INTO NodeInputs (graph_id, node_id, idx, input_node_id, input_node_idx, "
            "is_control) VALUES (?, ?, ?, ?, ?, ?)",
            input_rows,
        )

    # ---- flush and close ------------------------------------------------------------------
    def _commit(self) -> None:
        if self._started:
            self._db.execute("COMMIT")
            self._started = False
        self._pending = 0

    def flush(self) -> None:
        with self._lock:
            if not self._closed:
                self._commit()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            if self._run_id is not None:
                self._begin()
                self._db.execute(
                    "UPDATE Runs SET finished_time = ? WHERE run_id = ?",
                    (time.time(), self._run_id),
                )
            self._commit()
            self._db.close()
            self._closed = True


def _value_tensor(v: summary_pb2.Summary.Value) -> tuple[np.ndarray | None, str]:
    """A summary value as the tensor the database keeps, and its plugin."""
    kind = v.WhichOneof("value")
    if kind == "simple_value":
        return np.array(v.simple_value, np.float32), "scalars"
    if kind == "histo":
        h = v.histo
        k = len(h.bucket)
        left = [_DBL_MIN, *h.bucket_limit[: k - 1]] if k else []
        rows = np.array([left, list(h.bucket_limit[:k]), list(h.bucket)], np.float64)
        return rows.T.reshape(k, 3), "histograms"
    if kind == "image":
        im = v.image
        return np.array(
            [str(im.width).encode(), str(im.height).encode(), im.encoded_image_string], dtype=object
        ), "images"
    if kind == "audio":
        return np.array([[v.audio.encoded_audio_string, b""]], dtype=object), "audio"
    if kind == "tensor":
        return np.asarray(tensor_util.make_ndarray(v.tensor)), ""
    return None, ""
