"""What a Saver writing TensorFlow's V1 checkpoint format logs at each save, and what restoring
a variable missing from such a checkpoint says (a program's
`tf.train.Saver(write_version=1)` or `saver_pb2.SaverDef.V1`): each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_v1_checkpoint.py and on
tfcluster by tests/unit/test_v1_checkpoint.py. Python 3.7 code."""

from __future__ import annotations

import os
import shutil
import tempfile

try:
    from tf_reference.case_tools import LoggedWarnings, registrar
except ImportError:  # run as a recorder, from tests/tf_reference
    from case_tools import LoggedWarnings, registrar

CASES = {}
case = registrar(CASES, own_graph=True)


def _own(messages):
    """Without the deprecated-name notices (`From <file>: The name tf.x is deprecated`) that a
    program using tf.* rather than tf.compat.v1.* also gets."""
    return [m for m in messages if not m.startswith("From ")]


def _saves(tf, write_version, saves):
    """The warnings logged while building a Saver of that version, at each save and at a
    restore, and the files written."""
    folder = tempfile.mkdtemp()
    try:
        tf.Variable([1.0, 2.0], name="w")
        logged = {}
        with LoggedWarnings() as built:
            saver = tf.train.Saver(write_version=write_version)
        logged["built"] = _own(built.messages)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(saves):
                with LoggedWarnings() as saved:
                    path = saver.save(sess, os.path.join(folder, "model"), global_step=step)
                logged[f"save_{step}"] = _own(saved.messages)
            with LoggedWarnings() as restored:
                saver.restore(sess, path)
            logged["restore"] = [m for m in restored.messages if "V1" in m or "****" in m]
        return {"logged": logged, "files": sorted(os.listdir(folder))}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@case
def every_v1_save_logs_the_deprecation_lines(tf):
    """Each save of a V1 Saver logs the six starred lines, before writing; building it and
    restoring log nothing of them."""
    return _saves(tf, tf.train.SaverDef.V1, 2)


@case
def a_v2_save_logs_nothing(tf):
    """The default V2 format logs none of them."""
    return _saves(tf, tf.train.SaverDef.V2, 1)


def _missing_key_error(tf, write_version):
    """The error restoring a graph with one variable more than the checkpoint holds: its class
    and the lines of its message up to the one naming the key (without the node TF appends
    to it), the folder written <dir>."""
    folder = tempfile.mkdtemp()
    try:
        with tf.Graph().as_default():
            tf.Variable([1.0, 2.0], name="w")
            saver = tf.train.Saver(write_version=write_version)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                path = saver.save(sess, os.path.join(folder, "model"))
        with tf.Graph().as_default():
            tf.Variable([1.0, 2.0], name="w")
            tf.Variable(0.5, name="extra/bias")
            saver = tf.train.Saver(write_version=write_version)
            with tf.Session() as sess:
                try:
                    saver.restore(sess, path)
                    return {"error": None}
                except Exception as e:  # the class and message are what is compared
                    message = getattr(e, "message", str(e)).replace(folder, "<dir>")
                    lines = message.split("\n")
                    end = next(i for i, line in enumerate(lines) if "not found" in line)
                    lines[end] = lines[end].split(" [[")[0].rstrip()
                    return {"error": type(e).__name__, "lines": lines[: end + 1]}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@case
def a_key_missing_from_a_v1_checkpoint_names_its_files(tf):
    """Restoring a variable a V1 checkpoint lacks: TF's V1 reader says `Tensor name "..."
    not found in checkpoint files <prefix>` inside the restore's NotFoundError."""
    return _missing_key_error(tf, tf.train.SaverDef.V1)


@case
def a_key_missing_from_a_v2_checkpoint(tf):
    """The same with a V2 checkpoint: `Key ... not found in checkpoint`."""
    return _missing_key_error(tf, tf.train.SaverDef.V2)
