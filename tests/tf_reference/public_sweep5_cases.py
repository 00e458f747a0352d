"""Behaviours that TF1 programs (a super-resolution GAN trained from a queue of JPEGs, a DQN
agent with RMSProp and TensorBoard summaries, an RL library's utilities) showed apart on
tfcluster. Each case is `fn(tf) -> dict of plain values`, run on TF 1.15 by
record_public_sweep5.py and on tfcluster by tests/unit/test_public_sweep5_behaviours.py.
Python 3.7 code."""

from __future__ import annotations

import logging


class _LoggedInfo(logging.Handler):
    """The messages logged to TF's "tensorflow" logger at INFO and above while it is open
    (the logger's verbosity at INFO meanwhile)."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.messages = []
        self._level = None

    def emit(self, record):
        message = record.getMessage()
        if not message.startswith("From "):  # deprecation warnings of the names read
            self.messages.append(message)

    def __enter__(self):
        logger = logging.getLogger("tensorflow")
        self._level = logger.level
        logger.setLevel(logging.INFO)
        logger.addHandler(self)
        return self

    def __exit__(self, *exc):
        logger = logging.getLogger("tensorflow")
        logger.removeHandler(self)
        logger.setLevel(self._level)
        return False


def summary_names_with_illegal_characters(tf):
    """A summary name (or family, or merge name) with characters TensorBoard does not allow
    is cleaned, and TF logs at INFO "Summary name <name> is illegal; using <clean> instead."
    once per cleaned name (a DQN agent names its scalars 'episode.max reward')."""
    with tf.Graph().as_default():
        with _LoggedInfo() as logged:
            ops = [
                tf.summary.scalar("episode.max reward", tf.constant(1.0)),
                tf.summary.scalar("fine/name-1.x", tf.constant(1.0)),
                tf.summary.histogram("/leading slash", tf.constant([1.0, 2.0]), family="fam ily"),
                tf.summary.scalar("okname", tf.constant(2.0), family="x y"),
                tf.summary.text("a:b", tf.constant("t")),
                tf.summary.image("im(1)", tf.zeros([1, 2, 2, 1])),
                tf.summary.tensor_summary("ten sor", tf.constant([1, 2])),
                tf.summary.audio("au dio", tf.zeros([1, 4]), 8000),
            ]
            merged = tf.summary.merge(ops[:2], name="all summaries")
        return {
            "messages": logged.messages,
            "op_names": [op.op.name for op in [*ops, merged]],
        }


CASES = {
    "summary_names_with_illegal_characters": summary_names_with_illegal_characters,
}
