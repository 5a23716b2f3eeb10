"""Spans as columns in the layout of the `otel_traces` table.

The collector decodes straight into these lists, the writer concatenates
batches of them and the store inserts them column-wise: no per-row objects on
the hot path.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

#: otel_traces column names, in the order SpanColumns holds them.
OTEL_TRACES_COLUMNS = (
    "Timestamp",
    "TraceId",
    "SpanId",
    "ParentSpanId",
    "TraceState",
    "SpanName",
    "SpanKind",
    "ServiceName",
    "ResourceAttributes",
    "ScopeName",
    "ScopeVersion",
    "SpanAttributes",
    "Duration",
    "StatusCode",
    "StatusMessage",
    "Events.Timestamp",
    "Events.Name",
    "Events.Attributes",
    "Links.TraceId",
    "Links.SpanId",
    "Links.TraceState",
    "Links.Attributes",
)


@dataclass
class SpanColumns:
    timestamp: list[int] = field(default_factory=list)
    trace_id: list[str] = field(default_factory=list)
    span_id: list[str] = field(default_factory=list)
    parent_span_id: list[str] = field(default_factory=list)
    trace_state: list[str] = field(default_factory=list)
    span_name: list[str] = field(default_factory=list)
    span_kind: list[str] = field(default_factory=list)
    service_name: list[str] = field(default_factory=list)
    resource_attributes: list[dict[str, str]] = field(default_factory=list)
    scope_name: list[str] = field(default_factory=list)
    scope_version: list[str] = field(default_factory=list)
    span_attributes: list[dict[str, str]] = field(default_factory=list)
    duration: list[int] = field(default_factory=list)
    status_code: list[str] = field(default_factory=list)
    status_message: list[str] = field(default_factory=list)
    events_timestamp: list[list[int]] = field(default_factory=list)
    events_name: list[list[str]] = field(default_factory=list)
    events_attributes: list[list[dict[str, str]]] = field(default_factory=list)
    links_trace_id: list[list[str]] = field(default_factory=list)
    links_span_id: list[list[str]] = field(default_factory=list)
    links_trace_state: list[list[str]] = field(default_factory=list)
    links_attributes: list[list[dict[str, str]]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.trace_id)

    def columns(self) -> list[list[Any]]:
        return [getattr(self, f.name) for f in fields(self)]

    def extend(self, other: SpanColumns) -> None:
        for mine, theirs in zip(self.columns(), other.columns(), strict=True):
            mine.extend(theirs)

    @classmethod
    def concat(cls, parts: list[SpanColumns]) -> SpanColumns:
        out = cls()
        for part in parts:
            out.extend(part)
        return out
