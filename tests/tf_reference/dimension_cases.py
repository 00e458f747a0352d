"""tf.Dimension's operators with Python values, as TF 1.15 answers them: a value that is no
dimension (a list, a string, 2.5) makes the arithmetic operators return NotImplemented, so
`[None] * tensor.shape[1]` repeats the list through __index__ (tensorflow_hmm's Viterbi
decoder does); the reflected, modulo and comparison operators convert and raise instead; an
unknown dimension has no int. Each case returns [label, ["ok", repr] or ["error", class,
message]] pairs. Runs under Python 3.7 (TF 1.15, record_dimension_operators.py) and on
tfcluster.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _outcome(fn: Callable[[], Any]) -> list[Any]:
    try:
        return ["ok", repr(fn())]
    except Exception as e:
        return ["error", type(e).__name__, str(e)]


def _run(cases: list[tuple[str, Callable[[], Any]]]) -> dict[str, Any]:
    return {"results": [[label, _outcome(fn)] for label, fn in cases]}


def sequences_repeated_by_a_dimension(tf: Any) -> dict[str, Any]:
    with tf.Graph().as_default():
        y = tf.placeholder(tf.float32, shape=(None, 5, 2))
        known, unknown = y.shape[1], y.shape[0]
        return _run(
            [
                ("list * dim", lambda: [None] * known),
                ("dim * list", lambda: known * [0]),
                ("tuple * dim", lambda: (1,) * known),
                ("str * dim", lambda: "ab" * known),
                ("list[dim]", lambda: [1, 2, 3, 4, 5, 6][known]),
                ("list[:dim]", lambda: [1, 2, 3, 4, 5, 6, 7][:known]),
                ("range(dim - 1, 0, -1)", lambda: list(range(known - 1, 0, -1))),
                ("list * unknown", lambda: [None] * unknown),
                ("list[unknown]", lambda: [1, 2][unknown]),
                ("int(unknown)", lambda: int(unknown)),
            ]
        )


def arithmetic_with_python_values(tf: Any) -> dict[str, Any]:
    d, u = tf.Dimension(6), tf.Dimension(None)
    return _run(
        [
            ("5 - d", lambda: 5 - d),
            ("7 - d", lambda: 7 - d),
            ("1 - u", lambda: 1 - u),
            ("20 // d", lambda: 20 // d),
            ("d % 4", lambda: d % 4),
            ("20 % d", lambda: 20 % d),
            ("d / 2", lambda: d / 2),
            ("2 / d", lambda: 2 / d),
            ("d * 2.0", lambda: d * 2.0),
            ("d * 2.5", lambda: d * 2.5),
            ("d + 'a'", lambda: d + "a"),
            ("d - 'a'", lambda: d - "a"),
            ("d // 'a'", lambda: d // "a"),
            ("d % 'a'", lambda: d % "a"),
            ("d + [1]", lambda: d + [1]),  # noqa: RUF005 (the operator itself)
            ("[1] + d", lambda: [1] + d),  # noqa: RUF005
            ("d == '6'", lambda: d == "6"),
            ("d == 'a'", lambda: d == "a"),
            ("d != 'a'", lambda: d != "a"),
            ("Dimension(2.5)", lambda: tf.Dimension(2.5)),
            ("Dimension(3.0)", lambda: tf.Dimension(3.0)),
            ("Dimension('3')", lambda: tf.Dimension("3")),
        ]
    )


def comparisons(tf: Any) -> dict[str, Any]:
    d, u = tf.Dimension(6), tf.Dimension(None)
    return _run(
        [
            ("d <= 6", lambda: d <= 6),
            ("d >= 7", lambda: d >= 7),
            ("6 >= d", lambda: 6 >= d),  # noqa: SIM300 (the reflected operator)
            ("5 < d", lambda: 5 < d),  # noqa: SIM300
            ("u <= 3", lambda: u <= 3),
            ("d < 'a'", lambda: d < "a"),
        ]
    )


CASES = {
    f.__name__: f
    for f in (sequences_repeated_by_a_dimension, arithmetic_with_python_values, comparisons)
}
