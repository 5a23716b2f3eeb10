"""Scoring traces: the evaluator protocol and registry, the built-in evaluators, the streaming runner."""

from ._base import Evaluator, evaluator
from ._efficiency import make_efficiency
from ._injection import injection
from ._judge import make_llm_judge
from ._refusal import refusal
from ._registry import DEFAULT_EVALUATORS, EvaluatorConfig, available, create, register
from ._runner import RunnerMetrics, RunnerSettings, StreamingRunner
from ._tool_safety import make_tool_safety

register("injection", lambda _options: injection)
register("refusal", lambda _options: refusal)
register("efficiency", make_efficiency)
register("tool_safety", make_tool_safety)
register("llm_judge", make_llm_judge)

__all__ = ["DEFAULT_EVALUATORS", "Evaluator", "EvaluatorConfig", "RunnerMetrics", "RunnerSettings",
           "StreamingRunner", "available", "create", "evaluator", "register"]
