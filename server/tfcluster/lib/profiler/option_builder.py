"""tf.profiler.ProfileOptionBuilder: the option dicts tf.profiler.profile takes, as TF 1.15's."""

from __future__ import annotations

import copy
from typing import Any


class ProfileOptionBuilder:
    """Builds profiling options: start from one of the presets, refine, build()."""

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        if options is not None:
            self._options = copy.deepcopy(options)
        else:
            self._options = {
                "max_depth": 100,
                "min_bytes": 0,
                "min_micros": 0,
                "min_params": 0,
                "min_float_ops": 0,
                "min_occurrence": 0,
                "order_by": "name",
                "account_type_regexes": [".*"],
                "start_name_regexes": [".*"],
                "trim_name_regexes": [],
                "show_name_regexes": [".*"],
                "hide_name_regexes": [],
                "account_displayed_op_only": False,
                "select": ["micros"],
                "step": -1,
                "output": "stdout",
            }

    @staticmethod
    def trainable_variables_parameter() -> dict[str, Any]:
        """Counts the parameters of trainable variables, by name scope."""
        return {
            "max_depth": 10000,
            "min_bytes": 0,
            "min_micros": 0,
            "min_params": 0,
            "min_float_ops": 0,
            "min_occurrence": 0,
            "order_by": "name",
            "account_type_regexes": ["_trainable_variables"],
            "start_name_regexes": [".*"],
            "trim_name_regexes": [],
            "show_name_regexes": [".*"],
            "hide_name_regexes": [],
            "account_displayed_op_only": True,
            "select": ["params"],
            "step": -1,
            "output": "stdout",
        }

    @staticmethod
    def float_operation() -> dict[str, Any]:
        """Counts the float operations of the ops with a registered FLOP statistic."""
        return {
            "max_depth": 10000,
            "min_bytes": 0,
            "min_micros": 0,
            "min_params": 0,
            "min_float_ops": 1,
            "min_occurrence": 0,
            "order_by": "float_ops",
            "account_type_regexes": [".*"],
            "start_name_regexes": [".*"],
            "trim_name_regexes": [],
            "show_name_regexes": [".*"],
            "hide_name_regexes": [],
            "account_displayed_op_only": True,
            "select": ["float_ops"],
            "step": -1,
            "output": "stdout",
        }

    @staticmethod
    def time_and_memory(
        min_micros: int = 1,
        min_bytes: int = 1,
        min_accelerator_micros: int = 0,
        min_cpu_micros: int = 0,
        min_peak_bytes: int = 0,
        min_residual_bytes: int = 0,
        min_output_bytes: int = 0,
    ) -> dict[str, Any]:
        """Shows the ops' execution time and memory (from a RunMetadata)."""
        return {
            "max_depth": 10000,
            "min_bytes": min_bytes,
            "min_peak_bytes": min_peak_bytes,
            "min_residual_bytes": min_residual_bytes,
            "min_output_bytes": min_output_bytes,
            "min_micros": min_micros,
            "min_accelerator_micros": min_accelerator_micros,
            "min_cpu_micros": min_cpu_micros,
            "min_params": 0,
            "min_float_ops": 0,
            "min_occurrence": 0,
            "order_by": "micros",
            "account_type_regexes": [".*"],
            "start_name_regexes": [".*"],
            "trim_name_regexes": [],
            "show_name_regexes": [".*"],
            "hide_name_regexes": [],
            "account_displayed_op_only": True,
            "select": ["micros", "bytes"],
            "step": -1,
            "output": "stdout",
        }

    def build(self) -> dict[str, Any]:
        return copy.deepcopy(self._options)

    def _set(self, **values: Any) -> ProfileOptionBuilder:
        self._options.update(values)
        return self

    def with_max_depth(self, max_depth: int) -> ProfileOptionBuilder:
        return self._set(max_depth=max_depth)

    def with_min_memory(
        self,
        min_bytes: int = 0,
        min_peak_bytes: int = 0,
        min_residual_bytes: int = 0,
        min_output_bytes: int = 0,
    ) -> ProfileOptionBuilder:
        return self._set(
            min_bytes=min_bytes,
            min_peak_bytes=min_peak_bytes,
            min_residual_bytes=min_residual_bytes,
            min_output_bytes=min_output_bytes,
        )

    def with_min_execution_time(
        self, min_micros: int = 0, min_accelerator_micros: int = 0, min_cpu_micros: int = 0
    ) -> ProfileOptionBuilder:
        return self._set(
            min_micros=min_micros,
            min_accelerator_micros=min_accelerator_micros,
            min_cpu_micros=min_cpu_micros,
        )

    def with_min_parameters(self, min_params: int) -> ProfileOptionBuilder:
        return self._set(min_params=min_params)

    def with_min_occurrence(self, min_occurrence: int) -> ProfileOptionBuilder:
        return self._set(min_occurrence=min_occurrence)

    def with_min_float_operations(self, min_float_ops: int) -> ProfileOptionBuilder:
        return self._set(min_float_ops=min_float_ops)

    def with_accounted_types(self, account_type_regexes: list[str]) -> ProfileOptionBuilder:
        return self._set(account_type_regexes=copy.copy(account_type_regexes))

    def with_node_names(
        self,
        start_name_regexes: list[str] | None = None,
        show_name_regexes: list[str] | None = None,
        hide_name_regexes: list[str] | None = None,
        trim_name_regexes: list[str] | None = None,
    ) -> ProfileOptionBuilder:
        for key, value in (
            ("start_name_regexes", start_name_regexes),
            ("show_name_regexes", show_name_regexes),
            ("hide_name_regexes", hide_name_regexes),
            ("trim_name_regexes", trim_name_regexes),
        ):
            if value is not None:
                self._options[key] = copy.copy(value)
        return self

    def account_displayed_op_only(self, is_true: bool) -> ProfileOptionBuilder:
        return self._set(account_displayed_op_only=is_true)

    def with_empty_output(self) -> ProfileOptionBuilder:
        return self._set(output="none")

    def with_stdout_output(self) -> ProfileOptionBuilder:
        return self._set(output="stdout")

    def with_file_output(self, outfile: str) -> ProfileOptionBuilder:
        return self._set(output=f"file:outfile={outfile}")

    def with_timeline_output(self, timeline_file: str) -> ProfileOptionBuilder:
        return self._set(output=f"timeline:outfile={timeline_file}")

    def with_pprof_output(self, pprof_file: str) -> ProfileOptionBuilder:
        return self._set(output=f"pprof:outfile={pprof_file}")

    def order_by(self, attribute: str) -> ProfileOptionBuilder:
        return self._set(order_by=attribute)

    def select(self, attributes: list[str]) -> ProfileOptionBuilder:
        return self._set(select=copy.copy(attributes))

    def with_step(self, step: int) -> ProfileOptionBuilder:
        return self._set(step=step)
