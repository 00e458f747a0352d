"""Which TensorFlow tfcluster follows (tf.VERSION, tf.__version__: TF 1.15's API and
behaviour, so programs that test the version take their TF 1.15 branch), and tfcluster's own
version (the package's, as pip knows it)."""

from __future__ import annotations

import platform

from tfcluster.framework import graph_io

TENSORFLOW_VERSION = "1.15.0"
TFCLUSTER_VERSION = "0.1.0"

VERSION = TENSORFLOW_VERSION
# TF's is `git describe` of the build; this names the TF release followed and tfcluster's.
GIT_VERSION = f"v{TENSORFLOW_VERSION}-tfcluster-{TFCLUSTER_VERSION}"
# TF's is the C++ compiler of its library; tfcluster's code runs on this Python's build.
COMPILER_VERSION = platform.python_compiler()
# The GraphDef versions this runtime writes (graph_io) and reads.
GRAPH_DEF_VERSION = graph_io.GRAPH_DEF_VERSION
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
