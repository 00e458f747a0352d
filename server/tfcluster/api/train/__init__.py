"""tf.train"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.distributed.cluster_spec import ClusterSpec
from tfcluster.lib.io.summary_iterator import summary_iterator
from tfcluster.ops.sdca_ops import sdca_fprint, sdca_optimizer, sdca_shrink_l1
from tfcluster.protos.cluster_pb2 import JobDef
from tfcluster.protos.example_pb2 import Example, SequenceExample
from tfcluster.protos.feature_pb2 import (
    BytesList,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
)
from tfcluster.protos.saver_pb2 import SaverDef
from tfcluster.task_server.server import ClusterDef, Server, ServerDef
from tfcluster.training.adadelta import AdadeltaOptimizer
from tfcluster.training.adagrad_da import AdagradDAOptimizer
from tfcluster.training.basic_loops import basic_train_loop
from tfcluster.training.basic_session_run_hooks import (
    CheckpointSaverHook,
    CheckpointSaverListener,
    FeedFnHook,
    FinalOpsHook,
    GlobalStepWaiterHook,
    LoggingTensorHook,
    NanLossDuringTrainingError,
    NanTensorHook,
    SecondOrStepTimer,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
)
from tfcluster.training.checkpoint_management import (
    checkpoint_exists,
    generate_checkpoint_state_proto,
    get_checkpoint_mtimes,
    get_checkpoint_state,
    latest_checkpoint,
    remove_checkpoint,
    update_checkpoint_state,
)
from tfcluster.training.checkpoint_utils import (
    NewCheckpointReader,
    checkpoints_iterator,
    init_from_checkpoint,
    list_variables,
    load_checkpoint,
    load_variable,
)
from tfcluster.training.coordinator import Coordinator, LooperThread
from tfcluster.training.device_setter import (
    GreedyLoadBalancingStrategy,
    byte_size_load_fn,
    replica_device_setter,
)
from tfcluster.training.ftrl import FtrlOptimizer
from tfcluster.training.input import (
    batch,
    batch_join,
    input_producer,
    limit_epochs,
    match_filenames_once,
    maybe_batch,
    maybe_batch_join,
    maybe_shuffle_batch,
    maybe_shuffle_batch_join,
    range_input_producer,
    shuffle_batch,
    shuffle_batch_join,
    slice_input_producer,
    string_input_producer,
)
from tfcluster.training.learning_rate_decay import (
    cosine_decay,
    cosine_decay_restarts,
    exponential_decay,
    inverse_time_decay,
    linear_cosine_decay,
    natural_exp_decay,
    noisy_linear_cosine_decay,
    piecewise_constant,
    piecewise_constant_decay,
    polynomial_decay,
)
from tfcluster.training.monitored_session import (
    ChiefSessionCreator,
    MonitoredSession,
    MonitoredTrainingSession,
    Scaffold,
    SessionCreator,
    SingularMonitoredSession,
    WorkerSessionCreator,
)
from tfcluster.training.moving_averages import ExponentialMovingAverage
from tfcluster.training.object_checkpoint import Checkpoint, CheckpointManager
from tfcluster.training.optimizer import Optimizer
from tfcluster.training.optimizers import (
    AdagradOptimizer,
    AdamOptimizer,
    GradientDescentOptimizer,
    MomentumOptimizer,
    RMSPropOptimizer,
)
from tfcluster.training.profiler_hook import ProfilerHook
from tfcluster.training.proximal_adagrad import ProximalAdagradOptimizer
from tfcluster.training.proximal_gradient_descent import ProximalGradientDescentOptimizer
from tfcluster.training.quantize_training import do_quantize_training_on_graphdef
from tfcluster.training.queue_runner import QueueRunner, add_queue_runner, start_queue_runners
from tfcluster.training.saver import Saver, export_meta_graph, import_meta_graph
from tfcluster.training.session_manager import SessionManager
from tfcluster.training.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)
from tfcluster.training.summary_io import SummaryWriterCache
from tfcluster.training.supervisor import Supervisor
from tfcluster.training.sync_replicas_optimizer import SyncReplicasOptimizer
from tfcluster.training.training_util import (
    assert_global_step,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
    global_step,
    write_graph,
)
from tfcluster.training.warm_starting_util import VocabInfo, warm_start

__getattr__ = _unimplemented.module_getattr("train")
