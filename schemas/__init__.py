"""The event schema: the contract between emitters, storage, evaluators and the eval center."""

from ._columns import OTEL_TRACES_COLUMNS, SpanColumns
from ._models import AgentSpan, SpanKind, Trace, TraceSummary

__all__ = ["OTEL_TRACES_COLUMNS", "AgentSpan", "SpanColumns", "SpanKind", "Trace", "TraceSummary"]
