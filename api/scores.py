"""Scores API, scoped to the caller's tenant."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel

from schemas import StoredScore
from store import ScoreFilter

from ._deps import StoreDep, TenantDep

router = APIRouter(prefix="/api/scores", tags=["scores"])


class ScorePage(BaseModel):
    items: list[StoredScore]
    next_offset: int | None


@router.get("", response_model=ScorePage, summary="Scores, newest traces first")
async def list_scores(
    store: StoreDep,
    tenant: TenantDep,
    trace_id: str | None = None,
    name: Annotated[str | None, Query(description="e.g. injection.attack_success")] = None,
    evaluator: str | None = None,
    label: str | None = None,
    severity: Literal["info", "warning", "critical"] | None = None,
    source: Literal["online", "offline"] | None = None,
    agent: str | None = None,
    cohort: Literal["baseline", "canary", "shadow"] | None = None,
    eval_run_id: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
) -> ScorePage:
    flt = ScoreFilter(
        trace_id=trace_id.lower() if trace_id else None, name=name, evaluator=evaluator, label=label,
        severity=severity, source=source, agent=agent, cohort=cohort, eval_run_id=eval_run_id,
        since_ns=int(since.timestamp() * 1e9) if since else None,
        until_ns=int(until.timestamp() * 1e9) if until else None)
    items = await run_in_threadpool(store.list_scores, tenant, flt, limit + 1, offset)
    more = len(items) > limit
    return ScorePage(items=items[:limit], next_offset=offset + limit if more else None)
