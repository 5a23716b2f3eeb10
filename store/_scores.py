"""Scores, the streaming runner's candidate queries and watermarks."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from clickhouse_connect.driver.client import Client

from schemas import Score, StoredScore, Trace

from ._traces import span_rows_to_traces

_COLUMNS = ("Tenant", "TraceId", "Name", "Evaluator", "EvaluatorVersion", "Value", "Label", "Severity",
            "Explanation", "EvidenceSpanIds", "Source", "AgentName", "AgentVersion", "Cohort",
            "Environment", "EvalRunId", "EvalCaseId", "TraceStart", "ScoredAt")


@dataclass(frozen=True)
class Candidate:
    tenant: str
    trace_id: str
    last_ingested_ms: int
    has_root: bool


@dataclass(frozen=True)
class ScoreFilter:
    trace_id: str | None = None
    name: str | None = None
    evaluator: str | None = None
    label: str | None = None
    severity: str | None = None
    source: str | None = None
    agent: str | None = None
    cohort: str | None = None
    eval_run_id: str | None = None
    since_ns: int | None = None
    until_ns: int | None = None


def insert_scores(client: Client, scored: list[tuple[Trace, Score]], scored_at_ms: int) -> None:
    rows = []
    for trace, score in scored:
        agent = trace.agent_span
        start = trace.start_time or datetime.fromtimestamp(0, UTC)
        rows.append([
            trace.tenant, trace.trace_id, score.name, score.evaluator, score.evaluator_version,
            float(score.value), score.label, score.severity.value, score.explanation,
            score.evidence_span_ids, "offline" if agent and agent.eval_run_id else "online",
            agent.agent_name if agent else "", agent.agent_version if agent else "",
            agent.cohort if agent else "", agent.environment if agent else "",
            agent.eval_run_id if agent else "", agent.eval_case_id if agent else "",
            int(start.timestamp() * 1e9), scored_at_ms,
        ])
    if rows:
        client.insert("scores", rows, column_names=_COLUMNS)


def list_scores(client: Client, tenant: str, flt: ScoreFilter, limit: int, offset: int) -> list[StoredScore]:
    where = ["Tenant = {tenant:String}"]
    params: dict[str, Any] = {"tenant": tenant, "limit": limit, "offset": offset}
    for field, column in (("trace_id", "TraceId"), ("name", "Name"), ("evaluator", "Evaluator"),
                          ("label", "Label"), ("severity", "Severity"), ("source", "Source"),
                          ("agent", "AgentName"), ("cohort", "Cohort"), ("eval_run_id", "EvalRunId")):
        value = getattr(flt, field)
        if value is not None:
            where.append(f"{column} = {{{field}:String}}")
            params[field] = value
    if flt.since_ns is not None:
        where.append("TraceStart >= fromUnixTimestamp64Nano({since:Int64})")
        params["since"] = flt.since_ns
    if flt.until_ns is not None:
        where.append("TraceStart < fromUnixTimestamp64Nano({until:Int64})")
        params["until"] = flt.until_ns
    rows = client.query(
        f"SELECT {', '.join(_COLUMNS[:-2])}, toUnixTimestamp64Nano(TraceStart), "
        f"toUnixTimestamp64Milli(ScoredAt) FROM scores FINAL WHERE {' AND '.join(where)} "
        "ORDER BY TraceStart DESC, TraceId, Evaluator, Name LIMIT {limit:UInt32} OFFSET {offset:UInt32}",
        parameters=params).result_rows
    return [StoredScore(
        tenant=r[0], trace_id=r[1], name=r[2], evaluator=r[3], evaluator_version=r[4], value=r[5],
        label=r[6], severity=r[7], explanation=r[8], evidence_span_ids=list(r[9]), source=r[10],
        agent_name=r[11], agent_version=r[12], cohort=r[13], environment=r[14], eval_run_id=r[15],
        eval_case_id=r[16], trace_start=datetime.fromtimestamp(r[17] / 1e9, UTC),
        scored_at=datetime.fromtimestamp(r[18] / 1e3, UTC)) for r in rows]


def now_ms(client: Client) -> int:
    return int(str(client.command("SELECT toUnixTimestamp64Milli(now64(3))")))


def candidates(client: Client, shard: int, shards: int, lo_ms: int, hi_ms: int) -> list[Candidate]:
    """Traces with a span ingested in (lo, hi], with their last ingestion and root presence."""
    rows = client.query(
        """
        SELECT Tenant, TraceId, toUnixTimestamp64Milli(max(IngestedAt)), countIf(ParentSpanId = '') > 0
        FROM agent_spans
        WHERE (Tenant, TraceId) IN (
            SELECT DISTINCT Tenant, TraceId FROM agent_spans
            WHERE IngestedAt > fromUnixTimestamp64Milli({lo:Int64})
              AND IngestedAt <= fromUnixTimestamp64Milli({hi:Int64})
              AND cityHash64(TraceId) % {shards:UInt32} = {shard:UInt32})
        GROUP BY Tenant, TraceId
        """,
        parameters={"lo": lo_ms, "hi": hi_ms, "shard": shard, "shards": shards}).result_rows
    return [Candidate(r[0], r[1], int(r[2]), bool(r[3])) for r in rows]


def traces_between(client: Client, since_ns: int, until_ns: int, shard: int, shards: int) -> list[
        tuple[str, str]]:
    rows = client.query(
        "SELECT DISTINCT Tenant, TraceId FROM agent_spans "
        "WHERE StartTime >= fromUnixTimestamp64Nano({s:Int64}) "
        "AND StartTime < fromUnixTimestamp64Nano({u:Int64}) "
        "AND cityHash64(TraceId) % {shards:UInt32} = {shard:UInt32}",
        parameters={"s": since_ns, "u": until_ns, "shard": shard, "shards": shards}).result_rows
    return [(r[0], r[1]) for r in rows]


def load_traces(client: Client, keys: list[tuple[str, str]]) -> list[Trace]:
    if not keys:
        return []
    from ._traces import SPAN_SELECT

    rows = client.query(
        f"SELECT {SPAN_SELECT} FROM agent_spans "
        "WHERE (Tenant, TraceId) IN {keys:Array(Tuple(String, String))} "
        "ORDER BY TraceId, StartTime, SpanId LIMIT 1 BY Tenant, TraceId, SpanId",
        parameters={"keys": keys}).result_rows
    return span_rows_to_traces(list(rows))


def get_watermark(client: Client, shard: int, shards: int) -> int | None:
    rows = client.query(
        "SELECT toUnixTimestamp64Milli(Watermark) FROM evaluator_watermarks FINAL "
        "WHERE Shard = {shard:UInt32} AND Shards = {shards:UInt32}",
        parameters={"shard": shard, "shards": shards}).result_rows
    return int(rows[0][0]) if rows else None


def set_watermark(client: Client, shard: int, shards: int, watermark_ms: int, now: int) -> None:
    client.insert("evaluator_watermarks", [[shard, shards, watermark_ms, now]],
                  column_names=["Shard", "Shards", "Watermark", "UpdatedAt"])
