"""The event schema: the contract between emitters, storage, evaluators and the eval center."""

from ._columns import OTEL_TRACES_COLUMNS, SpanColumns
from ._models import AgentSpan, SpanKind, Trace, TraceSummary, message_text
from ._scores import Score, Severity, StoredScore

__all__ = ["OTEL_TRACES_COLUMNS", "AgentSpan", "Score", "Severity", "SpanColumns", "SpanKind",
           "StoredScore", "Trace", "TraceSummary", "message_text"]
