"""Checkpoint prefixes are file patterns in TF 1.15: Saver.restore, checkpoint_exists,
latest_checkpoint and the deletion of old checkpoints match the prefix with TF's file
matching (fnmatch with '\\' escaping the next character and '[...]' a class), so a prefix
written with Windows separators ("logs\\model") or with brackets saves its files but never
finds them again; and get_checkpoint_mtimes gives whole seconds. Each case is
`fn(tf) -> dict of plain values`, run on TF 1.15 by record_checkpoint_patterns.py and on
tfcluster by tests/unit/test_checkpoint_patterns.py. Python 3.7 code."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile

try:  # run by the tests (tests/ on the path) or by the recorder (in its folder)
    from tf_reference.case_tools import error
except ImportError:
    from case_tools import error


def _saved_three_times(tf, directory, prefix):
    """Saves one variable at steps 0, 1, 2 (max_to_keep=1) under directory/prefix; returns
    what the program sees afterwards, the directory's file names and the restore error."""
    with tf.Graph().as_default():
        tf.Variable(3.0, name="v")
        saver = tf.train.Saver(max_to_keep=1)
        path = os.path.join(directory, prefix)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saved = [saver.save(sess, path, global_step=step) for step in range(3)]
            last = saved[-1]
            restored = error(lambda: saver.restore(sess, last))
        latest, latest_log = _logged(lambda: tf.train.latest_checkpoint(directory))
        out = {
            "saved": [os.path.relpath(p, directory) for p in saved],
            "files": sorted(os.listdir(directory)),
            "exists": tf.train.checkpoint_exists(last),
            "latest": _relative(latest, directory),
            "latest_log": [m.replace(directory, "<dir>") for m in latest_log],
            "glob_index": [_relative(p, directory) for p in tf.gfile.Glob(last + ".index")],
            "gfile_exists_index": tf.gfile.Exists(last + ".index"),
            "mtimes": len(tf.train.get_checkpoint_mtimes([last])),
            "restore": restored,
        }
        if restored is not None:
            restored["message"] = restored["message"].replace(directory, "<dir>")
        return out


class _Messages(logging.Handler):
    def __init__(self):
        logging.Handler.__init__(self)
        self.messages = []

    def emit(self, record):
        self.messages.append(f"{record.levelname}: {record.getMessage()}")


def _logged(fn):
    """fn's result and the messages logged on the "tensorflow" logger meanwhile."""
    handler = _Messages()
    logger = logging.getLogger("tensorflow")
    logger.addHandler(handler)
    try:
        return fn(), handler.messages
    finally:
        logger.removeHandler(handler)


def _relative(path, directory):
    return None if path is None else os.path.relpath(path, directory)


def _in_a_fresh_directory(fn):
    directory = tempfile.mkdtemp()
    try:
        return fn(directory)
    finally:
        shutil.rmtree(directory)


def prefix_with_a_backslash(tf):
    """ "run\\model": saved, but no restore, no latest checkpoint, no old file deleted."""
    return _in_a_fresh_directory(lambda d: _saved_three_times(tf, d, "run\\model"))


def prefix_with_brackets(tf):
    """ "model[1]": the bracket is a class matching "model1", not the saved "model[1]"."""
    return _in_a_fresh_directory(lambda d: _saved_three_times(tf, d, "model[1]"))


def prefix_with_a_question_mark(tf):
    """ "model?": '?' matches any one character, so the saved "model?-2" matches itself."""
    return _in_a_fresh_directory(lambda d: _saved_three_times(tf, d, "model?"))


def plain_prefix(tf):
    """ "model": the ordinary case, restored, latest, old checkpoints deleted."""
    return _in_a_fresh_directory(lambda d: _saved_three_times(tf, d, "model"))


def mtimes_are_whole_seconds(tf):
    """get_checkpoint_mtimes is stat's mtime_nsec / 1e9, which TF's posix file system gives
    in whole seconds."""

    def run(directory):
        with tf.Graph().as_default():
            tf.Variable(1.0, name="w")
            saver = tf.train.Saver()
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                path = saver.save(sess, os.path.join(directory, "m"))
            # A fraction of a second in the file's modification time, as most saves have.
            os.utime(path + ".index", (1500000000.75, 1500000000.75))
            return {"mtimes": tf.train.get_checkpoint_mtimes([path, path + "-missing"])}

    return _in_a_fresh_directory(run)


CASES = {
    "mtimes_are_whole_seconds": mtimes_are_whole_seconds,
    "plain_prefix": plain_prefix,
    "prefix_with_a_backslash": prefix_with_a_backslash,
    "prefix_with_a_question_mark": prefix_with_a_question_mark,
    "prefix_with_brackets": prefix_with_brackets,
}
