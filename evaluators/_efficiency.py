"""efficiency: how much the trace cost and how much of it was waste.

Counts steps, LLM and tool calls, tokens, cost (from a per-model price table
in the evaluator's options: {"prices": {"model": {"input_per_1k": .., "output_per_1k": ..}}}),
wall time and p95 step latency; flags repeated identical tool calls, tool
errors and retries, and tool results never used afterwards (none of their
distinctive words reappear in later model output, tool arguments or the answer).

Reads: kinds, durations, tokens, models, tool names/arguments/results/status,
LLM output text. Blind spots: "unused" needs captured content (skipped
without it) and is a lexical heuristic; costs are only as right as the table.
"""

from __future__ import annotations

import json
import re
from typing import Any

from schemas import Score, Severity, Trace

from ._base import Evaluator

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]{5,}")
_COMMON = {"result", "results", "status", "return", "function", "response", "content", "message",
           "query", "string", "number", "object", "values", "created", "ticket", "success"}


def _normalized(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), sort_keys=True)
    except (json.JSONDecodeError, TypeError):
        return arguments.strip()


def _p95(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def make_efficiency(options: dict[str, Any]) -> Evaluator:
    prices: dict[str, dict[str, float]] = options.get("prices", {})

    def efficiency(trace: Trace) -> list[Score]:
        llm, tools, steps = trace.llm_calls, trace.tool_calls, trace.steps
        input_tokens = sum(s.input_tokens for s in llm)
        output_tokens = sum(s.output_tokens for s in llm)
        cost = 0.0
        priced = True
        for span in llm:
            price = prices.get(span.response_model) or prices.get(span.request_model)
            if price is None:
                priced = False
                continue
            cost += span.input_tokens / 1000 * price.get("input_per_1k", 0)
            cost += span.output_tokens / 1000 * price.get("output_per_1k", 0)
        start = trace.start_time
        end = max((s.end_time for s in trace.spans), default=start)
        wall_ms = (end - start).total_seconds() * 1000 if start and end else 0.0
        succeeded: set[tuple[str, str]] = set()
        repeated: list[str] = []
        retries: list[str] = []
        failed_before: set[str] = set()
        for call in tools:
            key = (call.tool_name, _normalized(call.tool_arguments))
            if key in succeeded and call.tool_arguments:
                repeated.append(call.span_id)  # the same call already answered: pure waste
            if not call.failed:
                succeeded.add(key)
            if call.tool_name in failed_before:
                retries.append(call.span_id)
            if call.failed:
                failed_before.add(call.tool_name)
        errors = [c.span_id for c in tools if c.failed]
        unused = _unused_results(trace)
        waste = len(repeated) + len(unused)
        scores = [
            Score(name="efficiency.steps", value=len(steps)),
            Score(name="efficiency.llm_calls", value=len(llm)),
            Score(name="efficiency.tool_calls", value=len(tools)),
            Score(name="efficiency.input_tokens", value=input_tokens),
            Score(name="efficiency.output_tokens", value=output_tokens),
            Score(name="efficiency.wall_time_ms", value=round(wall_ms, 3)),
            Score(name="efficiency.step_latency_p95_ms",
                  value=round(_p95([s.duration_ns / 1e6 for s in steps]), 3)),
            Score(name="efficiency.repeated_tool_calls", value=len(repeated),
                  severity=Severity.warning if repeated else Severity.info,
                  label="wasteful" if repeated else "ok", evidence_span_ids=repeated),
            Score(name="efficiency.tool_errors", value=len(errors), evidence_span_ids=errors,
                  severity=Severity.warning if errors else Severity.info),
            Score(name="efficiency.tool_retries", value=len(retries), evidence_span_ids=retries),
            Score(name="efficiency.unused_tool_results", value=len(unused), evidence_span_ids=unused,
                  label="wasteful" if waste else "ok"),
        ]
        if priced and llm:
            scores.append(Score(name="efficiency.cost_usd", value=round(cost, 6)))
        return scores

    return Evaluator("efficiency", "1", efficiency, "Steps, tokens, cost, latency and waste.")


def _unused_results(trace: Trace) -> list[str]:
    unused = []
    for call in trace.tool_calls:
        if not call.tool_result or call.failed:
            continue
        words = {w.lower() for w in _WORD.findall(call.tool_result)} - _COMMON
        if not words:
            continue
        later = [s for s in trace.spans if s.start_time >= call.end_time]
        downstream = " ".join(
            [s.output_text for s in later if s.kind.value == "llm"]
            + [s.tool_arguments for s in later if s.kind.value == "tool"]
            + [trace.final_answer]).lower()
        if not downstream.strip():
            continue  # no captured content to judge by
        if not any(w in downstream for w in words):
            unused.append(call.span_id)
    return unused
