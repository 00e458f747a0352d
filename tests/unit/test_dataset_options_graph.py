"""An iterator made over a pipeline puts TF 1.15's datasets after it: the threading options'
MaxIntraOpParallelismDataset / PrivateThreadPoolDataset where set, OptimizeDataset and
ModelDataset, so later seeded draws are TF's (tests/tf_reference/dataset_options_graph_cases.py,
recorded by record_dataset_options_graph.py)."""

from __future__ import annotations

import pytest
import tfcluster as tf
from tf_reference import reference
from tf_reference.case_tools import same
from tf_reference.dataset_options_graph_cases import CASES


@pytest.mark.parametrize("name", sorted(CASES))
def test_iterator_applies_tfs_option_datasets(name: str) -> None:
    same(CASES[name](tf), reference.case("dataset_options_graph", name), name)
