"""tf.compat.v2: TensorFlow 2's API, which tfcluster does not have; every name raises
UnimplementedError on use."""

from typing import NoReturn

from tfcluster.framework import errors


def __getattr__(name: str) -> NoReturn:
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    raise errors.UnimplementedError(
        None,
        None,
        f"tf.compat.v2.{name} is not implemented in tfcluster: tf.compat.v2 is TensorFlow 2's "
        "API, and tfcluster has TensorFlow 1.15's (tf.compat.v1, which is tf itself)",
    )


def __dir__() -> list[str]:
    return []
