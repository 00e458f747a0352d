"""Python callbacks get tensors as TF hands them over: 0-d values as scalars (a 0-d string as
`bytes`), others as numpy arrays; for py_func, numpy_function and from_generator's args.

Recorded under TF 1.15 (tests/tf_reference/record_callback_args.py).
"""

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.callback_arg_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_callback_gets_tf_python_values(name: str) -> None:
    assert CASES[name](tf) == reference.case("callback_args", name)
