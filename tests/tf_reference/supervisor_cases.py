"""Supervisor, Scaffold, session creators, MonitoredSession and the session-run hooks, as
programs written once against the TF1 API and run twice: by record_supervisor.py with
TensorFlow (`tf` is tensorflow.compat.v1), and by tests/unit/test_supervisor_reference.py with
tfcluster. Each case returns plain data about what a program can observe: the files written
in the log directory, the events in the event files (kinds, tags, session-log statuses,
steps), checkpoint names, op names the helpers add, values, the lines hooks log, the
structure of ProfilerHook's Chrome-trace timelines, and errors (class and first line).

Where a service runs on a timer in its own thread, the case arranges for what it records not
to depend on the thread's timing (services started once training is done, or only the kinds
of events recorded). Kept runnable on Python 3.7 (TensorFlow 1.15's interpreter) with only
numpy.
"""

from __future__ import annotations

import contextlib
import glob
import json
import logging
import os
import re
import shutil
import tempfile
import time

try:  # imported by the tests (tests/ on the path) or run by a recorder (from this folder)
    from tf_reference.case_tools import registrar
except ImportError:
    from case_tools import registrar

CASES = {}


case = registrar(CASES)


# ---- helpers ---------------------------------------------------------------------------------
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def _error(fn, tmp=None):
    """{"error": class name, "message": its first line} of what fn raises, or None (object
    addresses and the temporary directory `tmp` in the message made neutral)."""
    try:
        fn()
    except Exception as e:
        text = str(e.args[0]) if len(e.args) == 1 else str(e)
        text = _ADDRESS.sub(" at 0x", text.split("\n")[0])
        if tmp:
            text = text.replace(tmp, "<dir>")
        return {"error": type(e).__name__, "message": text}
    return None


@contextlib.contextmanager
def _tempdir():
    d = tempfile.mkdtemp(prefix="sv_case_")
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _first_part(error, separator):
    error["message"] = error["message"].split(separator)[0]
    return error


def _files(d):
    """The names in d, event files as 'events.out.tfevents.*'."""
    out = set()
    for name in os.listdir(d):
        out.add("events.out.tfevents.*" if name.startswith("events.out.tfevents.") else name)
    return sorted(out)


def _event_files(d):
    return sorted(glob.glob(os.path.join(d, "events.out.tfevents.*")))


def _read_events(tf, path):
    out = []
    try:
        for e in tf.train.summary_iterator(path):
            out.append(e)
    except tf.errors.DataLossError:
        pass  # TF leaves the cached writers' files unflushed at the end
    return out


def _event(e):
    kind = e.WhichOneof("what")
    if kind == "summary":
        detail = sorted(v.tag for v in e.summary.value)
    elif kind == "session_log":
        log = e.session_log
        status = ["STATUS_UNSPECIFIED", "START", "STOP", "CHECKPOINT"][log.status]
        detail = [status, os.path.basename(log.checkpoint_path)]
    elif kind == "tagged_run_metadata":
        detail = e.tagged_run_metadata.tag
    elif kind == "file_version":
        detail = e.file_version
    else:
        detail = None
    return {"what": kind, "detail": detail, "step": int(e.step)}


def _events(tf, d):
    """Every event of every event file in d, in file order."""
    return [_event(e) for path in _event_files(d) for e in _read_events(tf, path)]


def _kinds(events):
    """The distinct (kind, detail) of events, without steps, sorted: for timer threads."""
    seen = sorted({json.dumps([e["what"], e["detail"]]) for e in events})
    return [json.loads(s) for s in seen]


def _summary_values(tf, d, tag):
    """[step, value] of the summaries with `tag`."""
    out = []
    for path in _event_files(d):
        for e in _read_events(tf, path):
            if e.WhichOneof("what") == "summary":
                for v in e.summary.value:
                    if v.tag == tag:
                        out.append([int(e.step), float(v.simple_value)])
    return out


def _ops(g, start=0):
    return [[op.name, op.type] for op in g.get_operations()[start:]]


def _name(x):
    return None if x is None else x.name


def _model(tf, with_summary=True):
    """global_step, w (2 floats), loss = sum(w*w), a GradientDescent train op.

    The update waits for the loss: TensorFlow may otherwise compute a loss fetched with the
    train op from the updated w (it updates variables in place while the step reads them)."""
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable([1.0, 2.0], name="w")
    loss = tf.reduce_sum(w * w, name="loss")
    if with_summary:
        tf.summary.scalar("loss", loss)
    with tf.control_dependencies([loss]):
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
    return gs, w, loss, train


def _wait_for(path, timeout=30.0):
    end = time.time() + timeout
    while not os.path.exists(path) and time.time() < end:
        time.sleep(0.01)
    return os.path.exists(path)


class _LogLines(logging.Handler):
    """Collects the messages of the "tensorflow" logger at INFO and above."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


@contextlib.contextmanager
def _tf_log_lines():
    logger = logging.getLogger("tensorflow")
    handler = _LogLines()
    old = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler.lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)


_SECS = re.compile(r"\(\d+\.\d+ sec\)")


def _hook_lines(lines, prefixes):
    """The lines that start with one of prefixes, elapsed times as '(T sec)'."""
    return [_SECS.sub("(T sec)", s) for s in lines if s.startswith(tuple(prefixes))]


# ---- Supervisor ------------------------------------------------------------------------------
@case
def supervisor_builds_its_ops_and_finalizes_the_graph(tf):
    with _tempdir() as d:
        g = tf.Graph()
        with g.as_default():
            gs, _w, _loss, _train = _model(tf)
            start = len(g.get_operations())
            sv = tf.train.Supervisor(logdir=d, save_summaries_secs=3600, save_model_secs=3600)
            return {
                "ops": _ops(g, start),
                "finalized": g.finalized,
                "after_finalize": _error(lambda: tf.constant(1.0, name="late")),
                "is_chief": sv.is_chief,
                "init_op": _name(sv.init_op),
                "ready_op": _name(sv.ready_op),
                "ready_for_local_init_op": _name(sv.ready_for_local_init_op),
                "summary_op": _name(sv.summary_op),
                "global_step": _name(sv.global_step),
                "global_step_is_the_variable": sv.global_step is gs,
                "saver_in_collection": tf.get_collection(tf.GraphKeys.SAVERS) == [sv.saver],
                "save_path": os.path.basename(sv.save_path),
                "secs": [sv.save_summaries_secs, sv.save_model_secs],
                "writer": sv.summary_writer is not None,
                "session_manager": type(sv.session_manager).__name__,
                "coord": type(sv.coord).__name__,
                "collections": {
                    key: [_name(x) for x in tf.get_collection(key)]
                    for key in ("init_op", "local_init_op", "ready_op", "summary_op", "global_step")
                },
                "use_default": tf.train.Supervisor.USE_DEFAULT,
                "aliases": [
                    getattr(tf.train.Supervisor, n).__name__
                    for n in (
                        "PrepareSession",
                        "StartQueueRunners",
                        "StartStandardServices",
                        "Stop",
                        "RequestStop",
                        "Loop",
                        "ShouldStop",
                        "StopOnException",
                        "WaitForStop",
                        "SummaryComputed",
                    )
                ],
                "files": _files(d),
            }


@case
def supervisor_chief_writes_graph_summaries_and_checkpoints(tf):
    """Services started once training is done, so every event has the final step."""
    with _tempdir() as d:
        g = tf.Graph()
        with g.as_default():
            gs, w, _loss, train = _model(tf)
            sv = tf.train.Supervisor(logdir=d, save_summaries_secs=3600, save_model_secs=3600)
            with sv.managed_session(start_standard_services=False) as sess:
                # (TF writes events from a thread: whether its file exists yet is a race.)
                graph_at_start = "graph.pbtxt" in os.listdir(d)
                for _ in range(3):
                    sess.run(train)
                threads = sv.start_standard_services(sess)
                names = sorted(type(t).__name__ for t in threads)
                _wait_for(os.path.join(d, "model.ckpt-3.index"))
                time.sleep(0.5)
                values = sess.run([gs, w])
            events = _events(tf, d)
            step_counter = _summary_values(tf, d, "global_step/sec")
            return {
                "graph_at_start": graph_at_start,
                "threads": names,
                "files": _files(d),
                "events": sorted(events, key=json.dumps),
                "first_events": [e["what"] for e in events[:3]],
                "last_event": events[-1],
                "step_counter_steps": [s for s, _ in step_counter],
                "values": values,
                "should_stop": sv.should_stop(),
                "checkpoint": os.path.basename(tf.train.latest_checkpoint(d)),
            }


@case
def supervisor_managed_session_starts_services(tf):
    """The default managed session: initial summary, steps/sec and checkpoint at once."""
    with _tempdir() as d:
        g = tf.Graph()
        with g.as_default():
            _gs, _w, _loss, train = _model(tf)
            sv = tf.train.Supervisor(logdir=d, save_summaries_secs=3600, save_model_secs=3600)
            with sv.managed_session() as sess:
                _wait_for(os.path.join(d, "model.ckpt-0.index"))
                time.sleep(0.5)
                for _ in range(2):
                    sess.run(train)
            return {"files": _files(d), "kinds": _kinds(_events(tf, d))}


@case
def supervisor_restores_the_latest_checkpoint(tf):
    with _tempdir() as d:
        with tf.Graph().as_default():
            gs, w, _loss, train = _model(tf)
            sv = tf.train.Supervisor(logdir=d, save_summaries_secs=0, save_model_secs=0)
            with sv.managed_session() as sess:
                for _ in range(3):
                    sess.run(train)
                saved = sv.saver.save(sess, sv.save_path, global_step=sv.global_step)
                trained = sess.run([gs, w])
        with tf.Graph().as_default():
            gs, w, _loss, train = _model(tf)
            sv = tf.train.Supervisor(logdir=d, save_summaries_secs=0, save_model_secs=0)
            with sv.managed_session() as sess:
                restored = sess.run([gs, w])
                sess.run(train)
                after = sess.run([gs, w])
        return {
            "saved": os.path.basename(saved),
            "trained": trained,
            "restored": restored,
            "after": after,
            "files": _files(d),
            "state": [
                os.path.basename(p)
                for p in tf.train.get_checkpoint_state(d).all_model_checkpoint_paths
            ],
        }


@case
def supervisor_errors(tf):
    out = {}
    with tf.Graph().as_default():
        _model(tf, with_summary=False)
        out["non_chief_variables_without_device"] = _error(
            lambda: tf.train.Supervisor(is_chief=False)
        )
    with tf.Graph().as_default():
        with tf.device("/job:localhost/replica:0/task:0/device:CPU:0"):
            _model(tf, with_summary=False)
        sv = tf.train.Supervisor(is_chief=False, recovery_wait_secs=0.1)
        out["non_chief"] = [sv.summary_writer is None, sv.save_path, sv.save_model_secs]
        out["non_chief_services"] = _error(lambda: sv.start_standard_services(None))
    with tf.Graph().as_default():
        _model(tf, with_summary=False)
        sv = tf.train.Supervisor(logdir=None)
        with sv.managed_session() as sess:
            out["no_logdir"] = [sv.summary_writer is None, sv.save_path]
            out["no_logdir_services"] = sv.start_standard_services(sess)
            out["summary_computed_without_writer"] = _error(lambda: sv.summary_computed(sess, b""))

        def raise_in_block(exc):
            with sv.managed_session():
                raise exc

        out["block_error"] = _error(lambda: raise_in_block(ValueError("boom")))
        out["block_error_should_stop"] = sv.should_stop()
        out["out_of_range_is_a_clean_end"] = _error(
            lambda: raise_in_block(tf.errors.OutOfRangeError(None, None, "done"))
        )
        out["out_of_range_should_stop"] = sv.should_stop()
    with tf.Graph().as_default():
        _model(tf, with_summary=False)
        sv = tf.train.Supervisor(logdir=None, init_op=None, local_init_op=None)

        def no_init():
            with sv.managed_session():
                pass

        out["nothing_to_initialize"] = _error(no_init)
    with tf.Graph().as_default():
        _model(tf, with_summary=False)
        sv = tf.train.Supervisor(logdir=None, init_op=tf.no_op())

        def not_ready():
            with sv.managed_session():
                pass

        out["init_op_leaves_model_not_ready"] = _error(not_ready)
    return out


@case
def supervisor_init_fn_feed_dict_and_local_init(tf):
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [2], name="p")
        v = tf.Variable(p, name="v")
        u = tf.Variable([0.0, 0.0], name="u")
        local = tf.Variable(7, name="local", collections=[tf.GraphKeys.LOCAL_VARIABLES])
        tf.train.get_or_create_global_step()
        fill = u.assign([5.0, 6.0])

        def init_fn(sess):
            sess.run(fill)

        sv = tf.train.Supervisor(
            logdir=None, init_feed_dict={p: [3.0, 4.0]}, init_fn=init_fn, summary_op=None
        )
        with sv.managed_session() as sess:
            values = sess.run([v, u, local])
        return {"values": values, "init_feed_dict": len(sv.init_feed_dict)}


@case
def supervisor_global_step_by_name(tf):
    with tf.Graph().as_default():
        gs = tf.Variable(0, name="global_step", trainable=False)
        w = tf.Variable(1.0, name="w")
        before = tf.get_collection(tf.GraphKeys.GLOBAL_STEP)
        sv = tf.train.Supervisor(logdir=None)
        return {
            "before": len(before),
            "global_step": _name(sv.global_step),
            "is_variable": sv.global_step is gs,
            "collection": [_name(x) for x in tf.get_collection(tf.GraphKeys.GLOBAL_STEP)],
            "w": w.name,
        }


@case
def supervisor_without_saver_and_summaries(tf):
    with _tempdir() as d, tf.Graph().as_default():
        _gs, _w, _loss, train = _model(tf)
        merged = tf.summary.merge_all()
        sv = tf.train.Supervisor(logdir=d, saver=None, summary_op=None, save_model_secs=1)
        with sv.managed_session(start_standard_services=False) as sess:
            sess.run(train)
            threads = sv.start_standard_services(sess)
            names = sorted(type(t).__name__ for t in threads)
            time.sleep(0.3)
            sv.summary_computed(sess, sess.run(merged))
            sv.summary_computed(sess, sess.run(merged), global_step=10)
        return {
            "threads": names,
            "files": _files(d),
            "summaries": sorted(
                [e["step"], e["detail"]] for e in _events(tf, d) if e["what"] == "summary"
            ),
        }


@case
def supervisor_loop_request_stop_and_stop(tf):
    with tf.Graph().as_default():
        tf.Variable(1.0, name="w")
        sv = tf.train.Supervisor(logdir=None)
        calls = []
        with sv.managed_session():
            looper = sv.loop(0.01, calls.append, args=(1,))
            end = time.time() + 10
            while len(calls) < 3 and time.time() < end:
                time.sleep(0.01)
            sv.request_stop()
            stopped = sv.should_stop()
        return {
            "looper": type(looper).__name__,
            "called": len(calls) >= 3,
            "stopped": stopped,
            "alive_after": looper.is_alive(),
        }


@case
def supervisor_stop_reraises_a_service_error(tf):
    with tf.Graph().as_default():
        tf.Variable(1.0, name="w")
        sv = tf.train.Supervisor(logdir=None)

        def fail():
            raise ValueError("from a service")

        def run():
            with sv.managed_session():
                sv.loop(None, fail)
                sv.wait_for_stop()

        return {"error": _error(run), "should_stop": sv.should_stop()}


@case
def basic_train_loop_runs_until_stop(tf):
    with tf.Graph().as_default():
        _gs, _w, _loss, train = _model(tf, with_summary=False)
        sv = tf.train.Supervisor(logdir=None)
        seen = []

        def step(sess, scale, bias=0):
            seen.append(scale + bias)
            sess.run(train)
            if len(seen) == 4:
                sv.request_stop()

        tf.train.basic_train_loop(sv, step, args=(2,), kwargs={"bias": 1})
        return {"seen": seen, "should_stop": sv.should_stop()}


# ---- Scaffold and the session creators -------------------------------------------------------
@case
def scaffold_default_ops(tf):
    g = tf.Graph()
    with g.as_default():
        _model(tf)
        start = len(g.get_operations())
        scaffold = tf.train.Scaffold()
        unbuilt = [scaffold.init_op, scaffold.ready_op, scaffold.saver]
        scaffold.finalize()
        return {
            "unbuilt": [x is None for x in unbuilt],
            "ops": [op for op in _ops(g, start) if not op[0].startswith("save/")],
            "save_ops": len([op for op in _ops(g, start) if op[0].startswith("save/")]) > 0,
            "finalized": g.finalized,
            "init_op": _name(scaffold.init_op),
            "ready_op": _name(scaffold.ready_op),
            "ready_for_local_init_op": _name(scaffold.ready_for_local_init_op),
            "local_init_op": _name(scaffold.local_init_op),
            "summary_op": _name(scaffold.summary_op),
            "saver_in_collection": tf.get_collection(tf.GraphKeys.SAVERS) == [scaffold.saver],
            "saver_def_sharded": scaffold.saver.saver_def.sharded,
            "default_local_init_op": _error(tf.train.Scaffold.default_local_init_op),
            "copy": _name(tf.train.Scaffold(copy_from_scaffold=scaffold, summary_op=None).init_op),
            "copy_not_scaffold": _error(lambda: tf.train.Scaffold(copy_from_scaffold=1)),
        }


@case
def scaffold_collections_and_errors(tf):
    with tf.Graph().as_default():
        _model(tf)
        tf.add_to_collection(tf.GraphKeys.INIT_OP, tf.no_op(name="mine"))
        tf.add_to_collection(tf.GraphKeys.READY_OP, tf.constant([], tf.string, name="ready"))
        tf.add_to_collection(tf.GraphKeys.SUMMARY_OP, tf.no_op(name="s1"))
        tf.add_to_collection(tf.GraphKeys.SUMMARY_OP, tf.no_op(name="s2"))
        scaffold = tf.train.Scaffold()
        two = _error(scaffold.finalize)
        return {
            "two_summary_ops": two,
            "init_op": _name(scaffold.init_op),
            "ready_op": _name(scaffold.ready_op),
        }


@case
def chief_session_creator_restores_and_worker_waits(tf):
    with _tempdir() as d:
        with tf.Graph().as_default():
            gs, _w, _loss, train = _model(tf, with_summary=False)
            saver = tf.train.Saver()
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(train)
                saver.save(sess, os.path.join(d, "model.ckpt"), global_step=gs)
        with tf.Graph().as_default():
            gs, w, _loss, train = _model(tf, with_summary=False)
            creator = tf.train.ChiefSessionCreator(checkpoint_dir=d)
            sess = creator.create_session()
            restored = sess.run([gs, w])
            sess.close()
            creator = tf.train.ChiefSessionCreator(
                checkpoint_filename_with_path=os.path.join(d, "model.ckpt-1")
            )
            sess = creator.create_session()
            by_path = sess.run(gs)
            sess.close()
            both = _error(
                lambda: tf.train.ChiefSessionCreator(
                    checkpoint_dir=d, checkpoint_filename_with_path=d
                ).create_session()
            )
            # A new in-process session has its own variables: nobody made this model ready.
            worker = tf.train.WorkerSessionCreator(max_wait_secs=0)
            waited = _error(worker.create_session)
        return {"restored": restored, "by_path": by_path, "both": both, "worker": waited}


# ---- MonitoredSession ------------------------------------------------------------------------
@case
def monitored_session_run_step_fn(tf):
    with tf.Graph().as_default():
        c = tf.placeholder(tf.float32, name="c")
        v = tf.add(c, 4.0)
        w = tf.add(c, 0.5)
        gs = tf.train.get_or_create_global_step()
        inc = tf.assign_add(gs, 1)

        class Counter(tf.train.SessionRunHook):
            def __init__(self):
                self.before = 0

            def before_run(self, run_context):
                self.before += 1

        hook = Counter()
        out = {}
        with tf.train.MonitoredSession(hooks=[hook]) as sess:

            def step_fn(step_context):
                a = step_context.session.run(v, feed_dict={c: 0.5})
                b = step_context.run_with_hooks(w, feed_dict={c: 0.1})
                return [float(a), float(b)]

            out["returned"] = sess.run_step_fn(step_fn)
            out["hooks_ran"] = hook.before

            class Model:
                def step(self, step_context):
                    return step_context.run_with_hooks(inc)

            out["method"] = int(Model().step and sess.run_step_fn(Model().step))
            out["bad_args"] = _error(lambda: sess.run_step_fn(lambda ctx: None))

            def stop_fn(step_context):
                step_context.request_stop()
                return "not returned"

            out["request_stop"] = _error(lambda: sess.run_step_fn(stop_fn))
            out["should_stop_after_request"] = sess.should_stop()

        def in_with():
            with tf.train.MonitoredSession() as sess:
                sess.run_step_fn(stop_fn)
                return sess.should_stop()

        out["stop_ends_a_with_block"] = _error(in_with)
        return out


@case
def singular_monitored_session(tf):
    with _tempdir() as d, tf.Graph().as_default():
        gs, _w, _loss, train = _model(tf, with_summary=False)
        with tf.train.SingularMonitoredSession(checkpoint_dir=d) as sess:
            raw = sess.raw_session()
            raw_is_session = isinstance(raw, tf.Session)
            sess.run(train)
            value = raw.run(gs)
            graph_is = sess.graph is tf.get_default_graph()
        closed = sess.should_stop()
        return {
            "raw_is_session": raw_is_session,
            "value": value,
            "graph": graph_is,
            "closed": closed,
            "close_again": _error(sess.close),
        }


@case
def monitored_training_session_files(tf):
    with _tempdir() as d, tf.Graph().as_default():
        _gs, _w, _loss, train = _model(tf)
        with tf.train.MonitoredTrainingSession(
            checkpoint_dir=d, save_summaries_steps=2, log_step_count_steps=2
        ) as sess:
            for _ in range(5):
                sess.run(train)
        tf.summary.FileWriterCache.clear()
        events = _events(tf, d)
        return {
            "files": _files(d),
            "events": [
                [e["what"], e["detail"], e["step"]]
                for e in events
                if e["what"] != "summary" or e["detail"] != ["global_step/sec"]
            ],
            "step_counter_steps": [s for s, _ in _summary_values(tf, d, "global_step/sec")],
            "checkpoint": os.path.basename(tf.train.latest_checkpoint(d)),
        }


# ---- hooks -----------------------------------------------------------------------------------
def _run_hooks(tf, hooks, steps, model=None):
    _gs, _w, _loss, train = model or _model(tf, with_summary=False)
    with tf.train.MonitoredSession(hooks=hooks) as sess:
        for _ in range(steps):
            if sess.should_stop():
                break
            sess.run(train)
        return sess.should_stop()


@case
def profiler_hook_writes_chrome_trace_timelines(tf):
    with _tempdir() as d, tf.Graph().as_default():
        model = _model(tf, with_summary=False)
        hook = tf.train.ProfilerHook(save_steps=2, output_dir=d, show_memory=True)
        plain = tf.train.ProfilerHook(
            save_steps=3, output_dir=os.path.join(d, "plain"), show_dataflow=False
        )
        _run_hooks(tf, [hook, plain], 5, model)
        tf.summary.FileWriterCache.clear()
        out = {"files": _files(d), "plain_files": _files(os.path.join(d, "plain"))}
        out["events"] = [
            [e["what"], e["detail"], e["step"]]
            for e in _events(tf, d)
            if e["what"] == "tagged_run_metadata"
        ]
        for key, path in (
            ("memory", os.path.join(d, "timeline-2.json")),
            ("plain", os.path.join(d, "plain", "timeline-3.json")),
        ):
            with open(path) as f:
                text = f.read()
            out[key] = _trace_structure(json.loads(text))
            out[key + "_indented"] = text.startswith('{\n    "traceEvents": [')
        return out


def _trace_structure(trace):
    """What a timeline shows of the task's device, independent of timings and of the nodes
    TensorFlow's graph optimizer folds away."""
    events = trace["traceEvents"]
    device = "/job:localhost/replica:0/task:0/device:CPU:0"
    pids = {e["args"]["name"]: e["pid"] for e in events if e["ph"] == "M"}
    compute = pids.get(device + " Compute")
    tensors = pids.get(device + " Tensors")
    ops = {}
    for e in events:
        if e["ph"] == "X" and e["pid"] == compute:
            ops[e["args"]["name"]] = e
    apply = ops.get("GradientDescent/update_w/ApplyGradientDescent", {})
    step = ops.get("GradientDescent", {})
    # Flow events join nodes on different lanes, and lanes depend on how the node timings
    # overlap: only whether they come in start/end pairs is fixed.
    keys = {}
    for e in events:
        if e["ph"] not in ("s", "t"):
            keys.setdefault(e["ph"], sorted(e))
    flow_ids = {}
    for e in events:
        if e["ph"] in ("s", "t"):
            flow_ids.setdefault(e["id"], []).append(e["ph"])
    snapshots = [e for e in events if e["ph"] == "O" and e["pid"] == tensors]
    w_snapshot = [e for e in snapshots if e["name"] == "w"]
    counters = [e for e in events if e["ph"] == "C"]
    return {
        "top": sorted(trace),
        "metadata": sorted(n for n in pids if n.startswith(device) or n == "Allocators"),
        "allocators_pid": pids.get("Allocators"),
        "phases": sorted(keys),
        "keys": keys,
        "op_event": {
            "cat": apply.get("cat"),
            "name": apply.get("name"),
            "args": sorted(apply.get("args", {})),
            "input0": apply.get("args", {}).get("input0"),
            "input1": apply.get("args", {}).get("input1"),
        },
        "assign_add": [step.get("name"), step.get("args", {}).get("input0")],
        "source": ops.get("_SOURCE", {}).get("args"),
        "w_snapshot": (
            w_snapshot[0]["args"]["snapshot"]["tensor_description"].split("\n")[:6]
            if w_snapshot
            else None
        ),
        "counter": sorted({json.dumps([c["cat"], c["name"], sorted(c["args"])]) for c in counters}),
        "flows_paired": all(v == ["s", "t"] for v in flow_ids.values()),
    }


_STEP_STATS = """
dev_stats {
  device: "/job:worker/replica:0/task:0/device:CPU:0"
  node_stats { node_name: "_SOURCE" all_start_micros: 1000 timeline_label: "_SOURCE = NoOp()" }
  node_stats {
    node_name: "x" all_start_micros: 1002 op_end_rel_micros: 3 all_end_rel_micros: 4
    timeline_label: "x = Const()"
    output { slot: 0 tensor_description { dtype: DT_FLOAT shape { dim { size: 4 } }
      allocation_description { requested_bytes: 16 allocated_bytes: 16 allocator_name: "cpu" } } }
  }
  node_stats {
    node_name: "pair" all_start_micros: 1003 op_end_rel_micros: 5 all_end_rel_micros: 6
    timeline_label: "pair = Unique(x)"
    output { slot: 0 tensor_description { dtype: DT_FLOAT shape { dim { size: 4 } }
      allocation_description { requested_bytes: 16 allocator_name: "cpu" } } }
    output { slot: 1 tensor_description { dtype: DT_INT32 shape { dim { size: 4 } }
      allocation_description { requested_bytes: 16 allocator_name: "cpu" } } }
  }
  node_stats {
    node_name: "y" all_start_micros: 1010 op_end_rel_micros: 2 all_end_rel_micros: 2
    timeline_label: "y = Add(pair, pair:1, ^x)"
    output { slot: 0 tensor_description { dtype: DT_FLOAT shape { dim { size: 4 } }
      allocation_description { requested_bytes: 16 allocator_name: "cpu" } } }
  }
  node_stats { node_name: "RecvTensor" all_start_micros: 1011 all_end_rel_micros: 1 }
  node_stats { node_name: "nolabel" all_start_micros: 1013 all_end_rel_micros: 1 }
}
dev_stats {
  device: "/job:ps/replica:0/task:0/device:CPU:0"
  node_stats {
    node_name: "z" all_start_micros: 1020 op_end_rel_micros: 4 all_end_rel_micros: 4
    timeline_label: "z = Mul(y/_1, x)"
    output { slot: 0 tensor_description { dtype: DT_FLOAT shape { dim { size: 4 } }
      allocation_description { requested_bytes: 16 allocator_name: "cpu" } } }
  }
}
dev_stats {
  device: "/device:GPU:0/stream:all"
  node_stats { node_name: "conv:Conv2D" all_start_micros: 1030 all_end_rel_micros: 9 }
  node_stats { node_name: "lonely" all_start_micros: 1031 all_end_rel_micros: 2 }
}
"""


def _timeline_class(tf):
    if tf.__name__.startswith("tfcluster"):
        from tfcluster.client.timeline import Timeline
    else:
        from tensorflow.python.client.timeline import Timeline
    return Timeline


@case
def timeline_of_given_step_stats(tf):
    """The Chrome trace of fixed step stats, exactly: lanes, flows across lanes and devices
    (a received tensor's '/_N' suffix dropped), memory counters, GPU-tracer devices."""
    from google.protobuf import text_format

    timeline = _timeline_class(tf)
    out = {}
    for dataflow, memory in ((True, True), (True, False), (False, True)):
        metadata = tf.RunMetadata()
        text_format.Parse(_STEP_STATS, metadata.step_stats)
        trace = timeline(metadata.step_stats).generate_chrome_trace_format(
            show_dataflow=dataflow, show_memory=memory
        )
        out[f"{dataflow}_{memory}"] = json.loads(trace)
    metadata = tf.RunMetadata()
    text_format.Parse(_STEP_STATS, metadata.step_stats)
    analysis = timeline(metadata.step_stats).analyze_step_stats()
    best = analysis.allocator_maximums["cpu"]
    out["maximum"] = [best.timestamp, best.num_bytes, sorted(best.tensors)]
    return out


@case
def profiler_hook_default_output_dir_is_the_working_directory(tf):
    with _tempdir() as d:
        cwd = os.getcwd()
        os.chdir(d)
        try:
            with tf.Graph().as_default():
                hook = tf.train.ProfilerHook(save_secs=3600)
                _run_hooks(tf, [hook], 3)
            tf.summary.FileWriterCache.clear()
        finally:
            os.chdir(cwd)
        return {"files": _files(d)}


@case
def profiler_hook_needs_a_global_step(tf):
    with _tempdir() as d, tf.Graph().as_default():
        tf.Variable(1.0)
        hook = tf.train.ProfilerHook(save_steps=1, output_dir=d)
        both = _error(lambda: tf.train.ProfilerHook(save_steps=1, save_secs=1, output_dir=d))
        return {"no_global_step": _error(hook.begin), "both": both}


@case
def logging_tensor_hook_lines(tf):
    """Values logged with the train op are the loss (computed before the update) and a
    variable the step does not change (TF's reads of variables the step updates race)."""
    with tf.Graph().as_default():
        gs, w, loss, train = _model(tf, with_summary=False)
        v = tf.Variable([0.25, 4.0], name="v")
        every = tf.train.LoggingTensorHook({"loss": loss, "v": v}, every_n_iter=2)
        listed = tf.train.LoggingTensorHook([loss.name, "v"], every_n_iter=3)
        formatted = tf.train.LoggingTensorHook(
            {"loss": loss},
            every_n_iter=4,
            formatter=lambda values: "formatted loss {:.2f}".format(values["loss"]),
        )
        at_end = tf.train.LoggingTensorHook({"final step": gs}, at_end=True)
        with _tf_log_lines() as lines:
            _run_hooks(tf, [every, listed, formatted, at_end], 5, (gs, w, loss, train))
        errors = {
            "neither": _error(lambda: tf.train.LoggingTensorHook({"a": loss})),
            "both": _error(
                lambda: tf.train.LoggingTensorHook({"a": loss}, every_n_iter=1, every_n_secs=1)
            ),
            "zero_iter": _error(lambda: tf.train.LoggingTensorHook({"a": loss}, every_n_iter=0)),
        }
        return {
            "lines": _hook_lines(lines, ("loss", "formatted", "final")),
            "errors": errors,
        }


@case
def logging_tensor_hook_ambiguous_name(tf):
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        tf.unique(tf.constant([1, 1, 2]), name="u")
        hook = tf.train.LoggingTensorHook(["u"], every_n_iter=1)
        missing = tf.train.LoggingTensorHook(["nothing"], every_n_iter=1)
        return {"ambiguous": _error(hook.begin), "missing": _error(missing.begin), "gs": gs.name}


@case
def step_counter_hook_summaries(tf):
    with _tempdir() as d, tf.Graph().as_default():
        hook = tf.train.StepCounterHook(every_n_steps=2, output_dir=d)
        with _tf_log_lines() as lines:
            _run_hooks(tf, [hook], 7)
        tf.summary.FileWriterCache.clear()
        return {
            "steps": [s for s, _ in _summary_values(tf, d, "global_step/sec")],
            "logged": len([s for s in lines if s.startswith("global_step/sec: ")]),
            "files": _files(d),
            "both": _error(lambda: tf.train.StepCounterHook(every_n_steps=1, every_n_secs=1)),
        }


@case
def step_counter_hook_warns_when_the_step_stands_still(tf):
    with tf.Graph().as_default():
        tf.train.get_or_create_global_step()
        w = tf.Variable(1.0, name="w")
        no_step = w.assign_add(1.0)
        hook = tf.train.StepCounterHook(every_n_steps=10)
        with _tf_log_lines() as lines, tf.train.MonitoredSession(hooks=[hook]) as sess:
            for _ in range(3):
                sess.run(no_step)
        return {"warnings": [s[:60] for s in lines if s.startswith("It seems that global step")]}


@case
def checkpoint_saver_hook_and_listeners(tf):
    with _tempdir() as d, tf.Graph().as_default():
        calls = []

        class Listener(tf.train.CheckpointSaverListener):
            def begin(self):
                calls.append(["begin"])

            def before_save(self, session, global_step_value):
                calls.append(["before_save", int(global_step_value)])

            def after_save(self, session, global_step_value):
                calls.append(["after_save", int(global_step_value)])

            def end(self, session, global_step_value):
                calls.append(["end", int(global_step_value)])

        model = _model(tf, with_summary=False)
        hook = tf.train.CheckpointSaverHook(d, save_steps=2, listeners=[Listener()])
        _run_hooks(tf, [hook], 5, model)
        tf.summary.FileWriterCache.clear()
        events = _events(tf, d)
        return {
            "calls": calls,
            "files": _files(d),
            "events": [[e["what"], e["detail"], e["step"]] for e in events],
            "both": _error(lambda: tf.train.CheckpointSaverHook(d, save_secs=1, save_steps=1)),
            "saver_and_scaffold": _error(
                lambda: tf.train.CheckpointSaverHook(
                    d, save_steps=1, saver=1, scaffold=tf.train.Scaffold()
                )
            ),
        }


@case
def checkpoint_saver_listener_stops_training(tf):
    with _tempdir() as d, tf.Graph().as_default():

        class Stop(tf.train.CheckpointSaverListener):
            def after_save(self, session, global_step_value):
                return global_step_value >= 2

        model = _model(tf, with_summary=False)
        hook = tf.train.CheckpointSaverHook(d, save_steps=2, listeners=[Stop()])
        gs = model[0]
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            n = 0
            while not sess.should_stop() and n < 10:
                sess.run(model[3])
                n += 1
        tf.summary.FileWriterCache.clear()
        return {"runs": n, "files": _files(d), "gs": gs.name}


@case
def summary_saver_hook_events(tf):
    with _tempdir() as d, tf.Graph().as_default():
        gs, w, loss, train = _model(tf)
        hook = tf.train.SummarySaverHook(
            save_steps=2, output_dir=d, summary_op=tf.summary.merge_all()
        )
        _run_hooks(tf, [hook], 5, (gs, w, loss, train))
        tf.summary.FileWriterCache.clear()
        return {
            "events": [[e["what"], e["detail"], e["step"]] for e in _events(tf, d)],
            "neither": _error(lambda: tf.train.SummarySaverHook(save_steps=1, output_dir=d)),
        }


@case
def nan_tensor_hook(tf):
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        step = tf.assign_add(gs, 1)
        nan = tf.constant(float("nan"))

        def run(fail):
            with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(nan, fail)]) as sess:
                sess.run(step)
                return sess.should_stop()

        return {
            "fail": _error(lambda: run(True)),
            "stop": run(False),
            "error_text": str(tf.train.NanLossDuringTrainingError()),
        }


@case
def stop_at_step_hook(tf):
    with tf.Graph().as_default():
        gs, _w, _loss, train = _model(tf, with_summary=False)
        with tf.train.MonitoredSession(hooks=[tf.train.StopAtStepHook(last_step=4)]) as sess:
            runs = 0
            while not sess.should_stop():
                sess.run(train)
                runs += 1
            first = sess.run(gs) if not sess.should_stop() else None
        errors = {
            "neither": _error(tf.train.StopAtStepHook),
            "both": _error(lambda: tf.train.StopAtStepHook(num_steps=1, last_step=1)),
        }
        return {"runs": runs, "first": first, "errors": errors}


@case
def final_ops_feed_fn_and_global_step_waiter_hooks(tf):
    with tf.Graph().as_default():
        gs, _w, loss, train = _model(tf, with_summary=False)
        p = tf.placeholder(tf.float32, [], name="p")
        scaled = loss * p
        feeds = iter([1.0, 2.0, 3.0])
        final = tf.train.FinalOpsHook([loss, gs])
        feeder = tf.train.FeedFnHook(lambda: {p: next(feeds)})
        waiter = tf.train.GlobalStepWaiterHook(0)
        with tf.train.MonitoredSession(hooks=[final, feeder, waiter]) as sess:
            seen = [float(sess.run([scaled, train])[0]) for _ in range(3)]
        return {"seen": seen, "final": final.final_ops_values}


@case
def second_or_step_timer(tf):
    timer = tf.train.SecondOrStepTimer(every_steps=3)
    seen = []
    for step in range(8):
        fire = timer.should_trigger_for_step(step)
        if fire:
            seen.append([step, timer.update_last_triggered_step(step)[1]])
    errors = {
        "neither": _error(tf.train.SecondOrStepTimer),
        "both": _error(lambda: tf.train.SecondOrStepTimer(every_secs=1, every_steps=1)),
    }
    secs = tf.train.SecondOrStepTimer(every_secs=3600)
    first = secs.should_trigger_for_step(5)
    secs.update_last_triggered_step(5)
    return {
        "steps": seen,
        "last": timer.last_triggered_step(),
        "errors": errors,
        "secs": [first, secs.should_trigger_for_step(5), secs.should_trigger_for_step(100)],
    }


# ---- files and threads -----------------------------------------------------------------------
@case
def summary_iterator_reads_event_files(tf):
    with _tempdir() as d:
        with tf.Graph().as_default():
            writer = tf.summary.FileWriter(d)
            writer.add_summary(
                tf.Summary(value=[tf.Summary.Value(tag="x", simple_value=1.5)]), global_step=3
            )
            writer.add_session_log(tf.SessionLog(status=tf.SessionLog.START), 4)
            writer.close()
        path = _event_files(d)[0]
        events = list(tf.train.summary_iterator(path))
        with open(path, "rb") as f:
            data = f.read()
        cut = os.path.join(d, "cut")
        with open(cut, "wb") as f:
            f.write(data[:-5])

        def read_cut():
            return list(tf.train.summary_iterator(cut))

        return {
            "events": [_event(e) for e in events],
            "value": events[1].summary.value[0].simple_value,
            "wall_time": events[0].wall_time > 0,
            # (tfcluster's message names the file after TF's text.)
            "truncated": _first_part(_error(read_cut), " in file "),
            "missing": _error(lambda: list(tf.train.summary_iterator(os.path.join(d, "no"))), d),
        }


@case
def looper_thread(tf):
    coord = tf.train.Coordinator()
    calls = []

    def target(x, y=0):
        calls.append(x + y)
        if len(calls) >= 3:
            coord.request_stop()

    looper = tf.train.LooperThread.loop(coord, None, target, args=(1,), kwargs={"y": 2})
    coord.join([looper], stop_grace_period_secs=10)

    class Counting(tf.train.LooperThread):
        def __init__(self, coord):
            super().__init__(coord, 0.01)
            self.events = []

        def start_loop(self):
            self.events.append("start")

        def run_loop(self):
            self.events.append("run")
            if self.events.count("run") >= 2:
                self._coord.request_stop()

        def stop_loop(self):
            self.events.append("stop")

    coord2 = tf.train.Coordinator()
    counting = Counting(coord2)
    counting.start()
    coord2.join([counting], stop_grace_period_secs=10)
    return {
        "calls": calls,
        "daemon": looper.daemon,
        "events": counting.events,
        "args_without_target": _error(
            lambda: tf.train.LooperThread(tf.train.Coordinator(), 1, args=(1,))
        ),
        "not_a_coordinator": _error(lambda: tf.train.LooperThread(object(), 1)),
    }


@case
def generate_checkpoint_state_proto(tf):
    with _tempdir() as d:
        state = tf.train.generate_checkpoint_state_proto(
            d, os.path.join(d, "model.ckpt-2"), [os.path.join(d, "model.ckpt-1")]
        )
        relative = tf.train.generate_checkpoint_state_proto(d, "model.ckpt-2")
        return {
            "model": os.path.basename(state.model_checkpoint_path),
            "all": [os.path.basename(p) for p in state.all_model_checkpoint_paths],
            "relative": [relative.model_checkpoint_path, list(relative.all_model_checkpoint_paths)],
        }


@case
def control_dependencies_skip_dominated_inputs(tf):
    """An op made under control_dependencies gets no control input when one of its inputs was
    made in the same block (what the ProfilerHook's timeline labels show)."""
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
        with tf.control_dependencies([a]):
            c = tf.identity(b, name="c")
            d = tf.identity(c, name="d")
            with tf.control_dependencies([a, b]):
                e = tf.identity(d, name="e")
                f = tf.identity(a, name="f")
            with tf.control_dependencies(None):
                h = tf.identity(c, name="h")
        i = tf.identity(d, name="i")
        return {
            "inputs": {t.op.name: [x.name for x in t.op.control_inputs] for t in (c, d, e, f, h, i)}
        }


@case
def tables_initializer_without_tables(tf):
    g = tf.Graph()
    with g.as_default():
        a = tf.tables_initializer()
        b = tf.initializers.tables_initializer(name="mine")
        with tf.Session() as sess:
            sess.run([a, b])
        return {"ops": _ops(g)}


__all__ = ["CASES"]
