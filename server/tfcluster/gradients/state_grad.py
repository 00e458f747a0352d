"""Assignments and scatters into ref variables have no gradient (TF 1.15's state_grad marks
them not differentiable): they are updates, not functions of their inputs."""

from __future__ import annotations

from tfcluster.gradients.registry import not_differentiable

for _op in (
    "Assign",
    "AssignAdd",
    "AssignSub",
    "ScatterAdd",
    "ScatterSub",
    "ScatterMul",
    "ScatterDiv",
    "ScatterNdAdd",
    "ScatterNdSub",
    "ScatterNdUpdate",
):
    not_differentiable(_op)
