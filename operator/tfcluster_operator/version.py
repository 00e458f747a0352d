"""The operator's release: one value that the image tag, the chart's version and appVersion,
the manifests' image and ``tfcluster-operator --version`` all carry.

``tools/stamp_version.py`` writes it here and everywhere else (``--check`` verifies they
agree; a test runs the check).
"""

VERSION = "0.1.0"
