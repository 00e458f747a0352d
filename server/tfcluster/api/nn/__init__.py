"""tf.nn"""

from tfcluster.api import _unimplemented
from tfcluster.api.nn import rnn_cell  # noqa: F401 - tf.nn.rnn_cell
from tfcluster.lib.rnn.rnn import (  # noqa: F401
    bidirectional_dynamic_rnn,
    dynamic_rnn,
    raw_rnn,
    static_bidirectional_rnn,
    static_rnn,
    static_state_saving_rnn,
)
from tfcluster.ops.candidate_sampling_ops import (  # noqa: F401
    all_candidate_sampler,
    compute_accidental_hits,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from tfcluster.ops.conv_ops import *  # noqa: F403
from tfcluster.ops.ctc_ops import (  # noqa: F401
    collapse_repeated,
    ctc_beam_search_decoder,
    ctc_beam_search_decoder_v2,
    ctc_greedy_decoder,
    ctc_loss,
    ctc_loss_v2,
    ctc_unique_labels,
)
from tfcluster.ops.embedding_ops import embedding_lookup  # noqa: F401
from tfcluster.ops.embedding_sparse_ops import (  # noqa: F401
    embedding_lookup_sparse,
    safe_embedding_lookup_sparse,
)
from tfcluster.ops.fractional_pool_ops import (  # noqa: F401
    fractional_avg_pool,
    fractional_max_pool,
)
from tfcluster.ops.math_ops import sigmoid, tanh  # noqa: F401 - tf.nn.sigmoid is tf.sigmoid
from tfcluster.ops.morphology_ops import dilation2d, erosion2d  # noqa: F401
from tfcluster.ops.nn_extras import (  # noqa: F401
    batch_norm_with_global_normalization,
    compute_average_loss,
    log_poisson_loss,
    scale_regularization_loss,
)
from tfcluster.ops.nn_impl import *  # noqa: F403
from tfcluster.ops.nn_ops import *  # noqa: F403
from tfcluster.ops.pooling_ops import *  # noqa: F403
from tfcluster.ops.quantized_ops import *  # noqa: F403 - tf.nn.quantized_*
from tfcluster.ops.sampled_losses import nce_loss, sampled_softmax_loss  # noqa: F401
from tfcluster.ops.sort_ops import in_top_k, top_k  # noqa: F401 - TF 1.15's InTopKV2 form
from tfcluster.ops.space_to_batch_ops import (  # noqa: F401 - tf.nn has these three
    depth_to_space,
    space_to_batch,
    space_to_depth,
)

__getattr__ = _unimplemented.module_getattr("nn")
