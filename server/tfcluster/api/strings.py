"""tf.strings"""

# ruff: noqa: F401
from tfcluster.api import _unimplemented
from tfcluster.ops.parsing_ops import string_to_number as to_number
from tfcluster.ops.sparse_ops import strings_split_v1 as split
from tfcluster.ops.string_ops import (
    as_string,
    lower,
    reduce_join,
    regex_full_match,
    regex_replace,
    strip,
    substr,
    unsorted_segment_join,
    upper,
)
from tfcluster.ops.string_ops import string_format as format
from tfcluster.ops.string_ops import string_join as join
from tfcluster.ops.string_ops import string_length as length
from tfcluster.ops.string_ops import string_to_hash_bucket as to_hash_bucket
from tfcluster.ops.string_ops import string_to_hash_bucket_fast as to_hash_bucket_fast
from tfcluster.ops.string_ops import string_to_hash_bucket_strong as to_hash_bucket_strong
from tfcluster.ops.unicode_ops import (
    ngrams,
    unicode_decode,
    unicode_decode_with_offsets,
    unicode_encode,
    unicode_script,
    unicode_split,
    unicode_split_with_offsets,
    unicode_transcode,
)
from tfcluster.ops.unicode_ops import string_bytes_split as bytes_split

__getattr__ = _unimplemented.module_getattr("strings")
