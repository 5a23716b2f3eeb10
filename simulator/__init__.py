"""Live traffic for demos, evaluator tests and benchmarks: real agents, scripted model, real tools."""

from ._run import SimulationConfig, SimulationReport, TaskRecord, simulate

__all__ = ["SimulationConfig", "SimulationReport", "TaskRecord", "simulate"]
