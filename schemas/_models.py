"""Pydantic models of the normalized event schema.

`AgentSpan` is one row of `agent_spans`; `Trace` is the spans of one trace
with the navigation evaluators need. The same models describe a live trace
and an offline eval case's trace (which carries eval_run_id / eval_case_id).
"""

from __future__ import annotations

import json
from datetime import datetime
from enum import StrEnum
from functools import cached_property
from typing import Any

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

    @cached_property
    def root(self) -> AgentSpan | None:
        ids = {s.span_id for s in self.spans}
        roots = [s for s in self.spans if not s.parent_span_id or s.parent_span_id not in ids]
        return roots[0] if roots else None

    def children(self, span_id: str) -> list[AgentSpan]:
        return [s for s in self.spans if s.parent_span_id == span_id]

    @cached_property
    def steps(self) -> list[AgentSpan]:
        """LLM calls, tool calls and retrievals in the order they started."""
        return [s for s in self.spans if s.kind in (SpanKind.llm, SpanKind.tool, SpanKind.retriever)]

    @cached_property
    def llm_calls(self) -> list[AgentSpan]:
        return [s for s in self.spans if s.kind == SpanKind.llm]

    @cached_property
    def tool_calls(self) -> list[AgentSpan]:
        return [s for s in self.spans if s.kind == SpanKind.tool]

    @cached_property
    def tenant(self) -> str:
        return self.spans[0].tenant if self.spans else ""

    @cached_property
    def start_time(self) -> datetime | None:
        return min((s.start_time for s in self.spans), default=None)

    @cached_property
    def agent_span(self) -> AgentSpan | None:
        """The outermost agent span (else the root)."""
        agents = [s for s in self.spans if s.kind == SpanKind.agent]
        return agents[0] if agents else self.root

    @cached_property
    def user_prompt(self) -> str:
        """What the user asked: the agent span's input, else the first LLM call's user messages."""
        agent = self.agent_span
        if agent is not None and agent.input_text:
            return message_text(agent.input_text, roles=("user",))
        llm = self.llm_calls
        return message_text(llm[0].input_text, roles=("user",)) if llm else ""

    @cached_property
    def final_answer(self) -> str:
        """The agent's answer: its span's output, else the last LLM call's output."""
        agent = self.agent_span
        if agent is not None and agent.output_text:
            return message_text(agent.output_text)
        llm = self.llm_calls
        return message_text(llm[-1].output_text) if llm else ""

    @cached_property
    def untrusted_inputs(self) -> list[tuple[AgentSpan, str]]:
        """Content that came from outside the conversation: tool results and retrievals."""
        found = []
        for span in self.spans:
            if span.kind == SpanKind.tool and span.tool_result:
                found.append((span, span.tool_result))
            elif span.kind == SpanKind.retriever and span.output_text:
                found.append((span, span.output_text))
        return found

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


def message_text(raw: str, roles: tuple[str, ...] | None = None) -> str:
    """Plain text of a GenAI/OpenAI messages JSON document (or the raw text when it is not one)."""
    try:
        document: Any = json.loads(raw)
    except (json.JSONDecodeError, TypeError):
        return raw
    if isinstance(document, dict):
        document = [document]
    if not isinstance(document, list):
        return raw
    texts = []
    for message in document:
        if not isinstance(message, dict):
            continue
        if roles and message.get("role") not in roles:
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        for part in message.get("parts") or []:
            if isinstance(part, dict) and part.get("type") in ("text", None) and isinstance(
                    part.get("content"), str):
                texts.append(part["content"])
    return "\n".join(texts) if texts else ("" if roles else raw)
