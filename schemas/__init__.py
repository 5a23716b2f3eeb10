"""The event schema: the contract between emitters, storage, evaluators and the eval center."""

from ._columns import OTEL_TRACES_COLUMNS, SpanColumns
from ._eval import (
    Case,
    CaseIn,
    CaseResult,
    Dataset,
    DatasetIn,
    Run,
    RunDetail,
    RunIn,
    RunStatus,
    Verdict,
)
from ._models import AgentSpan, SpanKind, Trace, TraceSummary, message_text
from ._scores import Score, Severity, StoredScore

__all__ = ["OTEL_TRACES_COLUMNS", "AgentSpan", "Case", "CaseIn", "CaseResult", "Dataset", "DatasetIn",
           "Run", "RunDetail", "RunIn", "RunStatus", "Score", "Severity", "SpanColumns", "SpanKind",
           "StoredScore", "Trace", "TraceSummary", "Verdict", "message_text"]
