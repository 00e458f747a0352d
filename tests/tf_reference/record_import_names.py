"""Records TensorFlow 1.15's importer on clashing names (import_name_cases.py):
data/import_names.json.

    cd tests/tf_reference && /tmp/tf115/bin/python record_import_names.py
"""

from __future__ import annotations

from case_tools import record_tf115
from import_name_cases import CASES

record_tf115("import_names", CASES)
