"""tensorflow.python.lib.io.file_io, which programs import directly for its module functions
(get_matching_files, read_file_to_string, write_string_to_file, ...): TF 1.15's results, files
left and error classes. Cases in tests/tf_reference/file_io_cases.py, recorded by
record_file_io.py."""

from __future__ import annotations

from typing import Any

import pytest
from tf_reference import reference
from tf_reference.file_io_cases import CASES


@pytest.mark.parametrize("case", sorted(CASES))
def test_file_io_module_functions_behave_as_tf(case: str, tmp_path: Any) -> None:
    from tfcluster.python.lib.io import file_io

    reference.assert_case_equal("file_io", case, CASES[case](file_io, str(tmp_path)))
