"""Pydantic models of the normalized event schema.

`AgentSpan` is one row of `agent_spans`; `Trace` is the spans of one trace
with the navigation evaluators need. The same models describe a live trace
and an offline eval case's trace (which carries eval_run_id / eval_case_id).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field


class SpanKind(StrEnum):
    agent = "agent"
    llm = "llm"
    tool = "tool"
    retriever = "retriever"
    guardrail = "guardrail"
    other = "other"


class AgentSpan(BaseModel):
    """One normalized agent step."""

    tenant: str
    trace_id: str
    span_id: str
    parent_span_id: str = ""
    start_time: datetime
    end_time: datetime
    duration_ns: int
    name: str
    kind: SpanKind
    operation: str = ""
    agent_name: str = ""
    agent_id: str = ""
    agent_version: str = ""
    cohort: str = "baseline"
    environment: str = ""
    service_name: str = ""
    conversation_id: str = ""
    provider: str = ""
    request_model: str = ""
    response_model: str = ""
    tool_name: str = ""
    tool_call_id: str = ""
    tool_arguments: str = ""
    tool_result: str = ""
    tool_effect: str = ""
    input_text: str = ""
    output_text: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    status: str = "unset"
    status_message: str = ""
    error_type: str = ""
    eval_run_id: str = ""
    eval_case_id: str = ""
    attributes: dict[str, str] = Field(default_factory=dict)
    resource_attributes: dict[str, str] = Field(default_factory=dict)

    @property
    def is_root(self) -> bool:
        return not self.parent_span_id

    @property
    def failed(self) -> bool:
        return self.status == "error"


class Trace(BaseModel):
    """All spans of one trace, ordered by start time, with navigation."""

    trace_id: str
    spans: list[AgentSpan]

    @property
    def root(self) -> AgentSpan | None:
        ids = {s.span_id for s in self.spans}
        roots = [s for s in self.spans if not s.parent_span_id or s.parent_span_id not in ids]
        return roots[0] if roots else None

    def children(self, span_id: str) -> list[AgentSpan]:
        return [s for s in self.spans if s.parent_span_id == span_id]

    @property
    def steps(self) -> list[AgentSpan]:
        """LLM calls, tool calls and retrievals in the order they started."""
        return [s for s in self.spans if s.kind in (SpanKind.llm, SpanKind.tool, SpanKind.retriever)]

    @property
    def llm_calls(self) -> list[AgentSpan]:
        return [s for s in self.spans if s.kind == SpanKind.llm]

    @property
    def tool_calls(self) -> list[AgentSpan]:
        return [s for s in self.spans if s.kind == SpanKind.tool]

    def tree(self) -> list[dict[str, object]]:
        """The spans nested under their parents, roots first (for display)."""
        ids = {s.span_id for s in self.spans}
        by_parent: dict[str, list[AgentSpan]] = {}
        for span in self.spans:
            parent = span.parent_span_id if span.parent_span_id in ids else ""
            by_parent.setdefault(parent, []).append(span)

        def node(span: AgentSpan) -> dict[str, object]:
            return {"span_id": span.span_id, "name": span.name, "kind": span.kind.value,
                    "children": [node(c) for c in by_parent.get(span.span_id, [])]}

        return [node(s) for s in by_parent.get("", [])]


class TraceSummary(BaseModel):
    """One line of the trace list."""

    trace_id: str
    start_time: datetime
    end_time: datetime
    duration_ms: float
    root_name: str
    agent_name: str
    agent_version: str
    cohort: str
    environment: str
    service_name: str
    span_count: int
    llm_calls: int
    tool_calls: int
    input_tokens: int
    output_tokens: int
    error_count: int
    status: str
    eval_run_id: str = ""
