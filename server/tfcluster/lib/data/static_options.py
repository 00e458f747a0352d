"""The options TF 1.15 applies to a dataset before making an iterator over it
(Dataset._apply_options): its threading options' datasets, an OptimizeDataset naming its
static optimizations, then a ModelDataset while autotuning is on.

make_initializable_iterator and make_one_shot_iterator apply them; Iterator.make_initializer
does not, so a pipeline it starts runs unoptimized: shuffle().repeat() reshuffles each epoch
with new seeds rather than running as one ShuffleAndRepeatDataset. The kernels read the
optimization names off the OptimizeDataset (kernels/dataset_more.py).
"""

from __future__ import annotations

from typing import Any

from tfcluster.framework import dtypes
from tfcluster.framework.graph import convert_to_tensor
from tfcluster.lib.data import structure as st
from tfcluster.lib.data.dataset import Dataset
from tfcluster.ops import dataset_ops

# TF 1.15's OptimizationOptions._static_optimizations: these run when set to True ...
_OPTIONAL = (
    "filter_fusion",
    "filter_with_random_uniform_fusion",
    "hoist_random_uniform",
    "map_and_batch_fusion",
    "map_and_filter_fusion",
    "map_parallelization",
    "map_fusion",
    "noop_elimination",
    "parallel_batch",
    "shuffle_and_repeat_fusion",
)
# ... and these unless set to False, while apply_default_optimizations is not False.
_DEFAULT = ("map_and_batch_fusion", "noop_elimination", "shuffle_and_repeat_fusion")


def static_optimizations(optimization: Any) -> list[str]:
    """The sorted names of the static optimizations `optimization` (OptimizationOptions or
    None) turns on."""
    if optimization is None:
        return sorted(_DEFAULT)
    names = {n for n in _OPTIONAL if getattr(optimization, n) is True}
    if optimization.apply_default_optimizations is not False:
        names.update(n for n in _DEFAULT if getattr(optimization, n) is not False)
    return sorted(names)


def apply_options(dataset: Dataset) -> Dataset:
    """`dataset` with TF's threading datasets (MaxIntraOpParallelismDataset,
    PrivateThreadPoolDataset: where their options are set), OptimizeDataset and ModelDataset
    after it, in the default graph."""
    optimization = dataset.options().experimental_optimization
    names = static_optimizations(optimization)
    attrs = st.op_attrs(dataset._structure)
    out = dataset
    threading = dataset.options().experimental_threading
    for option, op_type, input_name in (
        ("max_intra_op_parallelism", "MaxIntraOpParallelismDataset", "max_intra_op_parallelism"),
        ("private_threadpool_size", "PrivateThreadPoolDataset", "num_threads"),
    ):
        value = None if threading is None else getattr(threading, option)
        if value is not None:
            t = convert_to_tensor(value, dtype=dtypes.int64, name=input_name)
            variant = dataset_ops.dataset_op(op_type, [out._variant_tensor, t], attrs)
            out = Dataset(variant, dataset._structure, [out])
    if names:
        optimizations = convert_to_tensor(names, dtype=dtypes.string, name="optimizations")
        variant = dataset_ops.dataset_op(
            "OptimizeDataset",
            [out._variant_tensor, optimizations],
            {**attrs, "optimization_configs": []},
        )
        out = Dataset(variant, dataset._structure, [out])
    autotune = optimization is None or optimization.autotune is not False
    if autotune:
        budget = 0 if optimization is None else int(optimization.autotune_cpu_budget or 0)
        variant = dataset_ops.dataset_op(
            "ModelDataset", [out._variant_tensor], {**attrs, "cpu_budget": budget}
        )
        out = Dataset(variant, dataset._structure, [out])
    return out
