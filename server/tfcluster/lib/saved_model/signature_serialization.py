"""Signatures for tf.saved_model.save (TF's signature_serialization): which concrete
functions become signatures, and the names of their inputs and outputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfcluster.framework.graph import Tensor
from tfcluster.framework.type_spec import TensorSpec
from tfcluster.lib.function.def_function import ConcreteFunction, Function
from tfcluster.lib.saved_model import object_graph
from tfcluster.lib.saved_model import signature_constants as sigs
from tfcluster.ops import nest

_DEFAULT_SIGNATURE_ATTR = "_default_save_signature"


def concrete_function(fn: Any) -> ConcreteFunction | None:
    if isinstance(fn, ConcreteFunction):
        return fn
    if isinstance(fn, Function) and fn.input_signature is not None:
        return fn.get_concrete_function()
    return None


def _keras_input_specs(model: Any) -> tuple[list[TensorSpec], list[str]] | None:
    """The specs and output names of a Keras model's default signature: a graph network's
    inputs and output layer names; a subclassed model's first call's inputs (batch size
    left open) as input_<i>, its outputs as output_<i>; None before a subclassed model is
    called."""
    if model.inputs:
        specs = [
            TensorSpec(t.shape, t.dtype.base_dtype, name=n)
            for t, n in zip(model.inputs, model.input_names)
        ]
        return specs, list(model.output_names)
    if not getattr(model, "_call_inputs", None):
        return None
    first = model._call_inputs[0]
    specs = [
        TensorSpec([None, *t.shape.as_list()[1:]], t.dtype.base_dtype, name=f"input_{i + 1}")
        for i, t in enumerate(first)
    ]
    return specs, []


def keras_model_signature(model: Any, input_signature: Any = None) -> ConcreteFunction | None:
    """TF's Keras `_default_save_signature` (saving_utils.trace_model_call): the model called
    on its inputs' specs (or `input_signature`'s, unnamed ones as args_<i>), its outputs
    keyed by the output names."""
    if input_signature is not None:
        specs = [
            TensorSpec(t.shape, t.dtype, name=t.name or f"args_{i}")
            for i, t in enumerate(nest.flatten(list(input_signature)))
        ]
        output_names = list(getattr(model, "output_names", None) or [])
    else:
        found = _keras_input_specs(model)
        if found is None:
            return None
        specs, output_names = found

    def call(inputs: Any) -> dict[str, Any]:
        outputs = model(inputs)
        flat = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        names = output_names or [f"output_{i + 1}" for i in range(len(flat))]
        return dict(zip(names, flat))

    spec: Any = specs[0] if len(specs) == 1 else specs
    fn = Function(call, name=_DEFAULT_SIGNATURE_ATTR, input_signature=[spec], autograph=False)
    return fn.get_concrete_function()


def find_function_to_export(root: Any) -> ConcreteFunction | None:
    """TF's choice without `signatures=`: a Keras model's default signature, else the root's
    one tf.function with an input signature (none where there are several)."""
    if object_graph.is_keras_model(root):
        return keras_model_signature(root)
    found = [
        c for _, fn, _ in object_graph.functions(root) if (c := concrete_function(fn)) is not None
    ]
    return found[0] if len(found) == 1 else None


def canonicalize_signatures(signatures: Any) -> dict[str, ConcreteFunction]:
    if not isinstance(signatures, Mapping):
        signatures = {sigs.DEFAULT_SERVING_SIGNATURE_DEF_KEY: signatures}
    out = {}
    for key, fn in signatures.items():
        if not isinstance(key, str):
            raise ValueError(f"Expected a string signature key, got {key!r}.")
        concrete = concrete_function(fn)
        if concrete is None:
            raise ValueError(
                f"Expected a TensorFlow function to generate a signature for, but got {fn}. "
                "Only `tf.functions` with an input signature or concrete functions can be used "
                "as a signature."
            )
        out[key] = concrete
    return out


def output_keys(concrete: ConcreteFunction, key: str) -> list[str]:
    """The signature's output keys, in the order of the function's flat outputs: a dict's
    keys (one Tensor each), else output_<i> for a Tensor or a flat list of them (TF's
    checks and messages)."""
    structure = concrete.structured_outputs
    if isinstance(structure, Mapping):
        for name, value in structure.items():
            if not isinstance(name, str):
                raise ValueError(
                    f"Got a dictionary with a non-string key {name!r} in the output of the "
                    f"function {concrete.name} used to generate a SavedModel signature."
                )
            if not isinstance(value, Tensor):
                raise ValueError(
                    f"Got a dictionary containing non-Tensor value {value} for key {name} in "
                    f"the output of the function {concrete.name} used to generate a "
                    "SavedModel signature. Dictionaries outputs for functions used as "
                    "signatures should have one Tensor output per string key."
                )
        return sorted(structure)
    flat = list(structure) if isinstance(structure, (list, tuple)) else [structure]
    if not all(isinstance(t, Tensor) for t in flat):
        raise ValueError(
            f"Got non-flat outputs '{structure}' from '{concrete.name}' for SavedModel "
            f"signature '{key}'. Signatures have one Tensor per output, so to have "
            "predictable names Python functions used to generate these signatures should "
            "avoid outputting Tensors in nested structures."
        )
    return [f"output_{i}" for i in range(len(flat))]


def input_names(concrete: ConcreteFunction) -> list[str]:
    """Each flat input's name: its TensorSpec's name, else its argument's (as TF names the
    function's placeholders)."""
    specs: list[TensorSpec | None] = [
        s for s in nest.flatten(concrete.structured_input_signature) if isinstance(s, TensorSpec)
    ]
    if len(specs) != len(concrete.graph.inputs):
        specs = [None] * len(concrete.graph.inputs)
    return [
        (s.name if s is not None and s.name else str(t.op.name))
        for s, t in zip(specs, concrete.graph.inputs)
    ]
