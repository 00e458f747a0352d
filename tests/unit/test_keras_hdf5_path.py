"""tf.keras HDF5 saves and loads on paths where the file cannot be made or read raise TF
1.15's plain OSError and message, whatever errno subclass a newer h5py raises
(keras_hdf5_path_cases.py, recorded by tests/tf_reference/record_keras_hdf5_path.py)."""

from __future__ import annotations

from typing import Any

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.keras_hdf5_path_cases import CASES, run


@pytest.mark.parametrize("case", sorted(CASES))
def test_hdf5_file_that_cannot_be_made_or_read(case: str, tmp_path: Any) -> None:
    assert run(tf, case, str(tmp_path)) == reference.case("keras_hdf5_path", case)
