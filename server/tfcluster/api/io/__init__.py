"""tf.io"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.lib.io.tfrecord import (
    TFRecordCompressionType,
    TFRecordOptions,
    TFRecordWriter,
    tf_record_iterator,
)
from tfcluster.ops.data_flow_ops import (
    PaddingFIFOQueue,
    PriorityQueue,
    QueueBase,
    RandomShuffleQueue,
)
from tfcluster.ops.image_codec_ops import (  # the image decoders, as tf.io has them
    decode_and_crop_jpeg,
    decode_bmp,
    decode_gif,
    decode_image,
    decode_jpeg,
    decode_png,
    encode_jpeg,
    extract_jpeg_shape,
    is_jpeg,
)
from tfcluster.ops.parsing_ops import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    SparseFeature,
    VarLenFeature,
    decode_compressed,
    decode_csv,
    decode_raw,
    parse_example,
    parse_sequence_example,
    parse_single_example,
    parse_single_sequence_example,
    parse_tensor,
    serialize_tensor,
)
from tfcluster.ops.proto_ops import decode_proto, encode_proto
from tfcluster.ops.reader_ops import matching_files, read_file, write_file
from tfcluster.ops.sparse_serialization_ops import (
    deserialize_many_sparse,
    serialize_many_sparse,
    serialize_sparse,
)
from tfcluster.ops.string_ops import decode_base64, encode_base64
from tfcluster.ops.unicode_ops import decode_json_example
from tfcluster.training.input import match_filenames_once
from tfcluster.training.training_util import write_graph

__getattr__ = _unimplemented.module_getattr("io")
