"""Log records of the training library (hooks, Supervisor, SessionManager) show as TensorFlow
1.15 shows them in programs that never call tf.logging: `import tfcluster` gives the
"tensorflow" logger its stderr handler ("WARNING:tensorflow:...") unless the root logger was
configured first (recorded by tests/tf_reference/record_import_logging.py under TF 1.15)."""

from __future__ import annotations

import pytest
from tf_reference import import_logging_cases, reference


@pytest.mark.parametrize("name", sorted(import_logging_cases.PROGRAMS))
def test_library_log_records_print_as_tensorflows(name: str) -> None:
    ours = import_logging_cases.run_program(import_logging_cases.TFCLUSTER_IMPORT, name)
    assert ours == reference.case("import_logging", name)
