"""Trace read API, scoped to the caller's tenant: another tenant's trace is a 404."""

from __future__ import annotations

import re
import time
from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel

from schemas import AgentSpan, StoredScore, TraceSummary
from store import ScoreFilter, TraceFilter, decode_cursor

from ._deps import StoreDep, TenantDep

router = APIRouter(prefix="/api/traces", tags=["traces"])

_TRACE_ID = re.compile(r"^[0-9a-f]{32}$")
_DAY_NS = 86_400 * 10**9


class TracePage(BaseModel):
    items: list[TraceSummary]
    next_cursor: str | None


class TraceDetail(BaseModel):
    trace_id: str
    spans: list[AgentSpan]
    tree: list[dict[str, object]]
    scores: list[StoredScore]


def _ns(value: datetime | None, default: int) -> int:
    return int(value.timestamp() * 1e9) if value else default


@router.get("", response_model=TracePage, summary="List traces, newest first")
async def list_traces(
    store: StoreDep,
    tenant: TenantDep,
    since: Annotated[datetime | None, Query(description="start of the window (default: 24 h ago)")] = None,
    until: Annotated[datetime | None, Query(description="end of the window (default: now)")] = None,
    agent: str | None = None,
    version: str | None = None,
    cohort: Literal["baseline", "canary", "shadow"] | None = None,
    environment: str | None = None,
    status: Literal["ok", "error"] | None = None,
    has_error: bool | None = None,
    eval_run_id: str | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: str | None = None,
) -> TracePage:
    now = time.time_ns()
    until_ns = _ns(until, now + 60 * 10**9)
    since_ns = _ns(since, until_ns - _DAY_NS)
    if since_ns >= until_ns:
        raise HTTPException(422, "since must be before until")
    if cursor:
        try:
            decode_cursor(cursor)
        except ValueError:
            raise HTTPException(422, "invalid cursor") from None
    flt = TraceFilter(since_ns, until_ns, agent, version, cohort, environment, status, has_error,
                      eval_run_id)
    items, next_cursor = await run_in_threadpool(store.list_traces, tenant, flt, limit, cursor)
    return TracePage(items=items, next_cursor=next_cursor)


@router.get("/{trace_id}", response_model=TraceDetail, summary="One trace with its span tree",
            responses={404: {"description": "no such trace for this tenant"}})
async def get_trace(trace_id: str, store: StoreDep, tenant: TenantDep) -> TraceDetail:
    trace_id = trace_id.lower()
    if not _TRACE_ID.match(trace_id):
        raise HTTPException(422, "trace_id must be 32 hexadecimal characters")
    trace = await run_in_threadpool(store.get_trace, tenant, trace_id)
    if trace is None:
        raise HTTPException(404, f"trace {trace_id} not found")
    scores = await run_in_threadpool(store.list_scores, tenant, ScoreFilter(trace_id=trace_id), 1000)
    return TraceDetail(trace_id=trace.trace_id, spans=trace.spans, tree=trace.tree(), scores=scores)
