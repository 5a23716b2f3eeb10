"""Evaluators by name: the built-ins, and third-party ones from the `agentwatch.evaluators`
entry-point group (each entry point names an Evaluator or a factory returning one)."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from pydantic import BaseModel, Field

from schemas import Trace
from schemas.errors import UsageError

from ._base import Evaluator

log = logging.getLogger("agentwatch.evaluators")
ENTRY_POINT_GROUP = "agentwatch.evaluators"

_REGISTRY: dict[str, Callable[[dict[str, Any]], Evaluator]] = {}


def register(name: str, factory: Callable[[dict[str, Any]], Evaluator]) -> None:
    _REGISTRY[name] = factory


def available() -> list[str]:
    _load_entry_points()
    return sorted(_REGISTRY)


def create(name: str, options: dict[str, Any] | None = None) -> Evaluator:
    _load_entry_points()
    if name not in _REGISTRY:
        raise UsageError(f"unknown evaluator {name!r}; available: {', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name](options or {})


_loaded = False


def _load_entry_points() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            target = entry.load()
        except Exception as exc:  # a broken plugin must not take the service down
            log.error("evaluator plugin %s failed to load: %s", entry.name, exc)
            continue
        if isinstance(target, Evaluator):
            register(entry.name, _constant(target))
        elif callable(target):
            register(entry.name, target)


def _constant(target: Evaluator) -> Callable[[dict[str, Any]], Evaluator]:
    return lambda _options: target


class EvaluatorConfig(BaseModel):
    """Enables one evaluator for the traces that match its filters."""

    name: str
    enabled: bool = True
    agents: list[str] = Field(default_factory=list, description="empty: every agent")
    cohorts: list[str] = Field(default_factory=list)
    environments: list[str] = Field(default_factory=list)
    sample_rate: float = Field(default=1.0, ge=0, le=1)
    options: dict[str, Any] = Field(default_factory=dict)

    def applies_to(self, trace: Trace) -> bool:
        agent = trace.agent_span
        if agent is None:
            return False
        if self.agents and agent.agent_name not in self.agents:
            return False
        if self.cohorts and agent.cohort not in self.cohorts:
            return False
        if self.environments and agent.environment not in self.environments:
            return False
        if self.sample_rate < 1:
            # stable per trace: a re-score samples the same traces
            return random.Random(trace.trace_id).random() < self.sample_rate
        return True


DEFAULT_EVALUATORS = ["injection", "refusal", "efficiency", "tool_safety"]
