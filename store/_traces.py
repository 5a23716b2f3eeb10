"""Read queries over agent_spans, always scoped to one tenant."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from clickhouse_connect.driver.client import Client

from schemas import AgentSpan, Trace, TraceSummary

_SPAN_COLUMNS = (
    "Tenant", "TraceId", "SpanId", "ParentSpanId", "toUnixTimestamp64Nano(StartTime)",
    "toUnixTimestamp64Nano(EndTime)", "DurationNs", "SpanName", "Kind", "Operation", "AgentName",
    "AgentId", "AgentVersion", "Cohort", "Environment", "ServiceName", "ConversationId",
    "Provider", "RequestModel", "ResponseModel", "ToolName", "ToolCallId", "ToolArguments",
    "ToolResult", "ToolEffect", "InputText", "OutputText", "InputTokens", "OutputTokens",
    "StatusCode", "StatusMessage", "ErrorType", "EvalRunId", "EvalCaseId", "Attributes",
    "ResourceAttributes",
)
_SPAN_FIELDS = tuple(AgentSpan.model_fields)
SPAN_SELECT = ", ".join(_SPAN_COLUMNS)


@dataclass(frozen=True)
class TraceFilter:
    since_ns: int
    until_ns: int
    agent: str | None = None
    version: str | None = None
    cohort: str | None = None
    environment: str | None = None
    status: str | None = None
    has_error: bool | None = None
    eval_run_id: str | None = None


def _ts(ns: int) -> datetime:
    return datetime.fromtimestamp(ns / 1e9, tz=UTC)


def encode_cursor(start_ns: int, trace_id: str) -> str:
    return base64.urlsafe_b64encode(f"{start_ns}:{trace_id}".encode()).decode()


def decode_cursor(cursor: str) -> tuple[int, str]:
    """Raises ValueError on a cursor we did not issue."""
    try:
        start, trace_id = base64.urlsafe_b64decode(cursor.encode()).decode().split(":", 1)
        return int(start), trace_id
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise ValueError("invalid cursor") from exc


def list_traces(
    client: Client, tenant: str, flt: TraceFilter, limit: int, cursor: str | None
) -> tuple[list[TraceSummary], str | None]:
    params: dict[str, Any] = {
        "tenant": tenant, "since": flt.since_ns, "until": flt.until_ns, "limit": limit + 1,
    }
    having = ["1"]
    for name, column in (("agent", "agent"), ("version", "version"), ("cohort", "cohort"),
                         ("environment", "environment"), ("eval_run_id", "eval_run_id")):
        value = getattr(flt, name)
        if value is not None:
            having.append(f"{column} = {{{name}:String}}")
            params[name] = value
    if flt.status is not None:
        having.append("status = {status:String}")
        params["status"] = flt.status
    if flt.has_error is not None:
        having.append("errors > 0" if flt.has_error else "errors = 0")
    if cursor:
        cursor_ns, cursor_id = decode_cursor(cursor)
        having.append("(start_ns < {cns:Int64} OR (start_ns = {cns:Int64} AND TraceId < {cid:String}))")
        params.update(cns=cursor_ns, cid=cursor_id)
    sql = f"""
        SELECT TraceId,
            toUnixTimestamp64Nano(min(StartTime)) AS start_ns,
            toUnixTimestamp64Nano(max(EndTime)) AS end_ns,
            argMin(SpanName, (ParentSpanId != '', StartTime)) AS root_name,
            argMin(AgentName, (AgentName = '', ParentSpanId != '', StartTime)) AS agent,
            argMin(AgentVersion, (AgentVersion = '', ParentSpanId != '', StartTime)) AS version,
            argMin(Cohort, (ParentSpanId != '', StartTime)) AS cohort,
            argMin(Environment, (Environment = '', StartTime)) AS environment,
            argMin(ServiceName, (ParentSpanId != '', StartTime)) AS service,
            count() AS spans,
            countIf(Kind = 'llm') AS llm_calls,
            countIf(Kind = 'tool') AS tool_calls,
            sum(InputTokens) AS input_tokens,
            sum(OutputTokens) AS output_tokens,
            countIf(StatusCode = 'error') AS errors,
            if(errors > 0, 'error', 'ok') AS status,
            argMin(EvalRunId, (EvalRunId = '', StartTime)) AS eval_run_id
        FROM agent_spans
        WHERE Tenant = {{tenant:String}}
          AND StartTime >= fromUnixTimestamp64Nano({{since:Int64}})
          AND StartTime < fromUnixTimestamp64Nano({{until:Int64}})
        GROUP BY TraceId
        HAVING {" AND ".join(having)}
        ORDER BY start_ns DESC, TraceId DESC
        LIMIT {{limit:UInt32}}
    """
    rows = client.query(sql, parameters=params).result_rows
    summaries = [
        TraceSummary(
            trace_id=r[0], start_time=_ts(r[1]), end_time=_ts(r[2]),
            duration_ms=(r[2] - r[1]) / 1e6, root_name=r[3], agent_name=r[4],
            agent_version=r[5], cohort=r[6], environment=r[7], service_name=r[8],
            span_count=r[9], llm_calls=r[10], tool_calls=r[11], input_tokens=r[12],
            output_tokens=r[13], error_count=r[14], status=r[15], eval_run_id=r[16],
        )
        for r in rows[:limit]
    ]
    next_cursor = None
    if len(rows) > limit:
        last = rows[limit - 1]
        next_cursor = encode_cursor(last[1], last[0])
    return summaries, next_cursor


def get_trace(client: Client, tenant: str, trace_id: str) -> Trace | None:
    bounds = client.query(
        "SELECT toUnixTimestamp64Nano(min(Start)), toUnixTimestamp64Nano(max(End)), count() "
        "FROM agent_trace_index WHERE Tenant = {tenant:String} AND TraceId = {tid:String}",
        parameters={"tenant": tenant, "tid": trace_id},
    ).result_rows
    if not bounds or not bounds[0][2]:
        return None
    start_ns, end_ns, _ = bounds[0]
    rows = client.query(
        f"SELECT {', '.join(_SPAN_COLUMNS)} FROM agent_spans "
        "WHERE Tenant = {tenant:String} AND TraceId = {tid:String} "
        "AND StartTime >= fromUnixTimestamp64Nano({s:Int64}) "
        "AND StartTime <= fromUnixTimestamp64Nano({e:Int64}) "
        "ORDER BY StartTime, SpanId LIMIT 1 BY SpanId",
        parameters={"tenant": tenant, "tid": trace_id, "s": start_ns, "e": end_ns},
    ).result_rows
    traces = span_rows_to_traces(list(rows))
    return traces[0] if traces else None


def span_rows_to_traces(rows: list[Any]) -> list[Trace]:
    """Rows selected with SPAN_SELECT, grouped into traces with spans in start order."""
    by_trace: dict[tuple[str, str], list[AgentSpan]] = {}
    for row in rows:
        values = dict(zip(_SPAN_FIELDS, row, strict=True))
        values["start_time"] = _ts(values["start_time"])
        values["end_time"] = _ts(values["end_time"])
        span = AgentSpan.model_validate(values)
        by_trace.setdefault((span.tenant, span.trace_id), []).append(span)
    traces = []
    for (_, trace_id), spans in by_trace.items():
        spans.sort(key=lambda s: (s.start_time, s.span_id))
        traces.append(Trace(trace_id=trace_id, spans=spans))
    return traces
