"""Programs whose in-memory Dataset.cache() is left before its first pass ends, for TF 1.15
(recorded by record_cache_warning.py) and tfcluster (tests/unit/test_cache_warning.py).

TF's memory cache drops a partial pass, logging a warning on stderr when the iterator that
was filling it goes away (a take that ends, an iterator initialized again, a session
closed), once the pass has cached an element. Each program marks its steps on stderr; the
marks and TF's warnings in between are compared (timestamps dropped).

Python 3.7 code, run as scripts in processes of their own.
"""

import sys

try:
    from tf_reference.case_tools import cpp_log_program
except ImportError:  # the recorder, run from tests/tf_reference under TF 1.15
    from case_tools import cpp_log_program

HEADER = """
import sys
import {module} as tf

def mark(text):
    print(text, file=sys.stderr, flush=True)

def read(make, steps):
    it = tf.data.make_initializable_iterator(make())
    n = it.get_next()
    with tf.Session() as s:
        s.run(it.initializer)
        for _ in range(steps):
            s.run(n)
        mark("closing")
    mark("closed")
"""

CASES = {
    "nothing_read": "read(lambda: tf.data.Dataset.range(10).cache(), 0)",
    "one_element_read": "read(lambda: tf.data.Dataset.range(10).cache(), 1)",
    "take_ends_each_repetition": """
read(lambda: tf.data.Dataset.range(10).cache().take(3).repeat(3), 7)
""",
    "whole_pass_cached": "read(lambda: tf.data.Dataset.range(3).cache().repeat(2), 4)",
    "iterator_initialized_again": """
it = tf.data.make_initializable_iterator(tf.data.Dataset.range(10).cache())
n = it.get_next()
with tf.Session() as s:
    s.run(it.initializer)
    s.run(n)
    s.run(n)
    mark("initializing again")
    s.run(it.initializer)
    mark("initialized")
    s.run(n)
mark("closed")
""",
    "file_cache_left_early": """
import tempfile, os
prefix = os.path.join(tempfile.mkdtemp(), "cache")
read(lambda: tf.data.Dataset.range(10).cache(prefix), 3)
""",
}

_MARKS = ("closing", "closed", "initializing again", "initialized")


def run_case(python, module, name, env=None):
    """The case's marks and its cache kernel's C++ log lines (no timestamps), run by
    `python` with `import <module> as tf`."""
    code = HEADER.format(module=module) + CASES[name]
    return cpp_log_program(python, code, "cache_dataset_ops", lambda line: line in _MARKS, env)


if __name__ == "__main__":
    print(run_case(sys.executable, sys.argv[1], sys.argv[2]))
