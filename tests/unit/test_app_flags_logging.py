"""tf.app.run, tf.flags and tf.logging as TensorFlow has them: small programs run in a process
of their own with tfcluster give the exit code, output and log records TensorFlow gave
(tests/tf_reference/scaffolding_cases.py PROGRAMS, recorded by record_scaffolding.py)."""

from __future__ import annotations

import json
import logging
import re

import pytest
import tfcluster as tf
from tf_reference import reference, scaffolding_cases


def _program_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """The records the program logged: TF 1.15's one-time deprecation warning for the first
    use of a tf.logging name (printed when this file runs first) is not one of them."""
    return [r for r in caplog.records if "is deprecated" not in r.getMessage()]


def _help_lines(stdout: str) -> list[str]:
    """The program's own part of --help/--helpfull output (the flags its module defines; the
    flags of the libraries that TensorFlow or tfcluster import differ)."""
    lines = [re.sub(r"/tmp/\S+/", "<tmp>/", line) for line in stdout.splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith("<tmp>/"))
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i] and not lines[i].startswith(" ")),
        len(lines),
    )
    return lines[:end]


@pytest.mark.parametrize("case", sorted(scaffolding_cases.PROGRAM_CASES))
def test_program_behaves_as_with_tensorflow(case: str) -> None:
    program, args = scaffolding_cases.PROGRAM_CASES[case]
    ours = scaffolding_cases.run_program(scaffolding_cases.TFCLUSTER_IMPORT, program, args)
    recorded = reference.case("scaffolding", f"program_{case}")
    assert ours["rc"] == recorded["rc"], ours
    assert ours["stderr"] == recorded["stderr"]
    if case.startswith("app_run_help"):
        assert _help_lines(ours["stdout"]) == _help_lines(recorded["stdout"])
    elif recorded["stdout"]:
        assert json.loads(ours["stdout"]) == json.loads(recorded["stdout"])
    else:
        assert ours["stdout"] == ""


def test_logging_levels_are_tensorflows() -> None:
    recorded = reference.case("scaffolding", "logging_levels")
    ours = scaffolding_cases.logging_cases(tf)["logging_levels"]
    assert ours == recorded


def test_set_verbosity_sets_the_tensorflow_loggers_level() -> None:
    logger = logging.getLogger("tensorflow")
    before = logger.level
    try:
        tf.logging.set_verbosity(tf.logging.DEBUG)
        assert tf.logging.get_verbosity() == logging.DEBUG == logger.getEffectiveLevel()
        tf.logging.set_verbosity("ERROR")
        assert tf.logging.get_verbosity() == tf.logging.ERROR
    finally:
        logger.setLevel(before)


def test_log_records_name_the_programs_line(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        tf.logging.info("hello %s", "there")
        line = _this_line() - 1
        tf.logging.log_if(tf.logging.WARN, "conditional", True)
        tf.get_logger().error("direct")
    records = [
        (r.levelname, r.getMessage(), r.filename, r.lineno) for r in _program_records(caplog)
    ]
    assert records[0] == ("INFO", "hello there", "test_app_flags_logging.py", line)
    assert records[1][:3] == ("WARNING", "conditional", "test_app_flags_logging.py")
    assert records[2][:3] == ("ERROR", "direct", "test_app_flags_logging.py")


def test_task_level_status_message_logs_an_error(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        tf.logging.TaskLevelStatusMessage("status")
    records = _program_records(caplog)
    assert [(r.levelno, r.getMessage()) for r in records] == [(logging.ERROR, "status")]


def _this_line() -> int:
    import inspect

    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    return frame.f_back.f_lineno
