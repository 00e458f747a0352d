"""Where the log records of TensorFlow's own library go, in programs that never call tf.logging
themselves: importing TensorFlow 1.15 gives the "tensorflow" logger its stderr handler
("WARNING:tensorflow:...") unless the root logger already had handlers, so a training hook's
warning shows with TF's prefix. Each program runs in a process of its own (the handler is set
up once per process); recorded by record_import_logging.py under TF 1.15 (Python 3.7 code).
"""

import json

try:
    from tf_reference.case_tools import run_script
except ImportError:  # run by the recorder from tests/tf_reference
    from case_tools import run_script

TF_IMPORT = "import tensorflow as tf"
TFCLUSTER_IMPORT = "import tfcluster as tf"

PROGRAMS = {
    # A library record straight after the import, with no tf.logging call before it.
    "library_record_after_import": """import json, logging
IMPORT_TF
logging.getLogger("tensorflow").warning("MARK library record %d", 1)
logging.getLogger("tensorflow").info("MARK info stays below the default level")
print(json.dumps([type(h).__name__ for h in logging.getLogger("tensorflow").handlers]))
""",
    # The root logger configured first: TensorFlow adds no handler of its own.
    "root_configured_before_import": """import json, logging
logging.basicConfig(format="ROOT %(levelname)s %(name)s %(message)s")
IMPORT_TF
logging.getLogger("tensorflow").warning("MARK through the root handler")
print(json.dumps([type(h).__name__ for h in logging.getLogger("tensorflow").handlers]))
""",
    # StepCounterHook's warning when the global step does not move, from a training loop.
    "hook_warning_in_training_loop": """import json
IMPORT_TF
step = tf.train.get_or_create_global_step()
noop = tf.no_op()
hook = tf.train.StepCounterHook(every_n_steps=1)
with tf.train.MonitoredSession(hooks=[hook]) as sess:
    for _ in range(3):
        sess.run(noop)
print(json.dumps("done"))
""",
}


def stderr_lines(stderr):
    """The log lines the comparison is about (TensorFlow's C++ start-up lines aside)."""
    return [line for line in stderr.splitlines() if "MARK" in line or "It seems" in line]


def run_program(tf_import, name):
    """Runs PROGRAMS[name] with `tf_import` as its import line: exit code, stdout, log lines."""
    done = run_script(PROGRAMS[name].replace("IMPORT_TF", tf_import), name)
    return {
        "rc": done.returncode,
        "stdout": json.loads(done.stdout) if done.stdout else None,
        "stderr": stderr_lines(done.stderr),
    }
