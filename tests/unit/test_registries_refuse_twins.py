"""Every op type is defined once, and has one kernel per device type and one gradient entry:
a second registration is an error at import, never a silent replacement decided by which
module happened to load last."""

from __future__ import annotations

import pytest
from tfcluster.framework import op_def_registry
from tfcluster.gradients import registry as gradient_registry
from tfcluster.runtime import kernel_table


def test_every_module_loads_without_a_second_registration() -> None:
    assert "Substr" in op_def_registry.registered_ops()  # loads every ops module
    assert ("MatchingFiles", "CPU") in kernel_table.registered_kernels()  # every kernel module
    assert "Print" in gradient_registry.registered()  # every gradient module


def test_a_second_op_definition_is_refused() -> None:
    with pytest.raises(ValueError, match="Substr is defined twice"):
        op_def_registry.register("Substr", op_def_registry.same_as_input())


def test_a_second_kernel_for_one_device_is_refused_unless_it_replaces() -> None:
    first = kernel_table.lookup("Assert", "CPU")
    with pytest.raises(ValueError, match="CPU kernel for Assert is registered twice"):
        kernel_table.add(kernel_table.KernelDef("Assert", "CPU", first.factory))
    kernel_table.add(first, replace=True)
    assert kernel_table.lookup("Assert", "CPU") is first


def test_a_second_gradient_is_refused_as_tf_does() -> None:
    with pytest.raises(KeyError, match="Registering two gradient with name 'MatMul'"):
        gradient_registry.RegisterGradient("MatMul")(lambda op, grad: [grad, grad])
