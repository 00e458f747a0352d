"""tf.keras.models.model_from_config / model_from_json / model_from_yaml: a model rebuilt from
its `{"class_name", "config"}` (the layers made anew, weights not restored)."""

from __future__ import annotations

import json
from typing import Any


def model_from_config(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    if isinstance(config, list):
        raise TypeError(
            "`model_from_config` expects a dictionary, not a list. Maybe you meant to use "
            "`Sequential.from_config(config)`?"
        )
    from tfcluster.lib.keras.layers.serialization import deserialize

    return deserialize(config, custom_objects=custom_objects)


def model_from_json(json_string: str, custom_objects: dict[str, Any] | None = None) -> Any:
    return model_from_config(json.loads(json_string), custom_objects=custom_objects)


def model_from_yaml(yaml_string: str, custom_objects: dict[str, Any] | None = None) -> Any:
    from tfcluster.lib.keras.engine.network import _require_yaml

    yaml = _require_yaml()
    loader = getattr(yaml, "unsafe_load", None) or yaml.load
    return model_from_config(loader(yaml_string), custom_objects=custom_objects)
