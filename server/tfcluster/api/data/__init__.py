"""tf.data"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.data.dataset import Dataset
from tfcluster.lib.data.iterator import (
    Iterator,
    get_output_classes,
    get_output_shapes,
    get_output_types,
    make_initializable_iterator,
    make_one_shot_iterator,
)
from tfcluster.lib.data.options import Options
from tfcluster.lib.data.readers import (
    FixedLengthRecordDataset,
    TextLineDataset,
    TFRecordDataset,
)
from tfcluster.lib.data.type_specs import DatasetSpec

__getattr__ = _unimplemented.module_getattr("data")
