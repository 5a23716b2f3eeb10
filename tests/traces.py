"""Build a Trace in one line, so an evaluator test is three lines.

    trace = make_trace(user="find the refund policy",
                       steps=[tool("web_fetch", result="..."), tool("send_email", effect="mutate",
                              args={"to": "x@y.z"})],
                       answer="Done.")
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from itertools import count
from typing import Any

from schemas import AgentSpan, SpanKind, Trace

_ids = count(1)
_T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def tool(name: str, *, result: str = "", args: Any = None, effect: str = "read", error: str = "",
         attributes: dict[str, str] | None = None) -> dict[str, Any]:
    return {"kind": SpanKind.tool, "tool_name": name, "tool_effect": effect, "tool_result": result,
            "tool_arguments": json.dumps(args) if not isinstance(args, str) and args is not None
            else (args or ""), "status": "error" if error else "ok", "error_type": error,
            "attributes": attributes or {}}


def llm(output: str = "", input_tokens: int = 100, output_tokens: int = 20,
        model: str = "m") -> dict[str, Any]:
    return {"kind": SpanKind.llm, "output_text": output, "input_tokens": input_tokens,
            "output_tokens": output_tokens, "request_model": model, "response_model": model}


def make_trace(user: str = "", answer: str = "", steps: list[dict[str, Any]] | None = None, *,
               cohort: str = "baseline", tenant: str = "default", agent: str = "helper",
               step_ms: int = 100, root_attributes: dict[str, str] | None = None) -> Trace:
    trace_id = f"{next(_ids):032x}"
    root_id = f"{next(_ids):016x}"
    steps = steps or []
    end = _T0 + timedelta(milliseconds=step_ms * (len(steps) + 1))
    spans = [AgentSpan(tenant=tenant, trace_id=trace_id, span_id=root_id, start_time=_T0,
                       end_time=end, duration_ns=int((end - _T0).total_seconds() * 1e9),
                       name=f"invoke_agent {agent}", kind=SpanKind.agent, agent_name=agent,
                       cohort=cohort, input_text=user, output_text=answer,
                       attributes=root_attributes or {})]
    for i, step in enumerate(steps):
        start = _T0 + timedelta(milliseconds=step_ms * i + 1)
        finish = start + timedelta(milliseconds=step_ms - 2)
        spans.append(AgentSpan(tenant=tenant, trace_id=trace_id, span_id=f"{next(_ids):016x}",
                               parent_span_id=root_id, start_time=start, end_time=finish,
                               duration_ns=int((finish - start).total_seconds() * 1e9),
                               name=f"{step['kind'].value} {step.get('tool_name', '')}", cohort=cohort,
                               **step))
    return Trace(trace_id=trace_id, spans=spans)
