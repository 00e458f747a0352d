"""tf.data.experimental"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.framework.type_spec import TypeSpec as Structure
from tfcluster.lib.data.csv import CsvDataset, make_csv_dataset
from tfcluster.lib.data.experimental import (
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Counter,
    RandomDataset,
    cardinality,
    choose_from_datasets,
    copy_to_device,
    enumerate_dataset,
    get_single_element,
    ignore_errors,
    make_batched_features_dataset,
    map_and_batch,
    map_and_batch_with_legacy_function,
    parallel_interleave,
    parse_example_dataset,
    prefetch_to_device,
    sample_from_datasets,
    scan,
    shuffle_and_repeat,
    take_while,
    unbatch,
    unique,
)
from tfcluster.lib.data.grouping import (
    Reducer,
    bucket_by_sequence_length,
    dense_to_sparse_batch,
    group_by_reducer,
    group_by_window,
)
from tfcluster.lib.data.iterator_saving import (
    CheckpointInputPipelineHook,
    make_saveable_from_iterator,
)
from tfcluster.lib.data.optional import Optional, get_next_as_optional
from tfcluster.lib.data.options import (
    DistributeOptions,
    MapVectorizationOptions,
    OptimizationOptions,
    StatsOptions,
    ThreadingOptions,
)
from tfcluster.lib.data.resampling import rejection_resample
from tfcluster.lib.data.sql import SqlDataset
from tfcluster.lib.data.stats import StatsAggregator, bytes_produced_stats, latency_stats
from tfcluster.lib.data.structures import (
    RaggedTensorStructure,
    SparseTensorStructure,
    TensorArrayStructure,
    TensorStructure,
    get_structure,
)
from tfcluster.lib.data.type_specs import DatasetSpec as DatasetStructure
from tfcluster.lib.data.type_specs import OptionalSpec as OptionalStructure
from tfcluster.lib.data.variants import from_variant, to_variant
from tfcluster.lib.data.writers import TFRecordWriter

__getattr__ = _unimplemented.module_getattr("data.experimental")
