"""Liveness, readiness and Prometheus metrics."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from ._deps import MetricsDep, StoreDep

router = APIRouter(tags=["operations"])


@router.get("/healthz", summary="The process is up")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz", summary="The store is reachable and migrations are applied")
async def readyz(request: Request, store: StoreDep, response: Response) -> dict[str, object]:
    reachable = await run_in_threadpool(store.ping)
    pending: list[int] = []
    if reachable:
        try:
            pending = await run_in_threadpool(store.pending_migrations)
        except Exception:
            reachable = False
    ready = reachable and not pending and bool(getattr(request.app.state, "store_ready", False))
    response.status_code = 200 if ready else 503
    return {"ready": ready, "store_reachable": reachable, "pending_migrations": pending}


@router.get("/metrics", summary="Prometheus metrics", response_class=Response)
async def metrics(metrics: MetricsDep, request: Request) -> Response:
    writer = getattr(request.app.state, "writer", None)
    if writer is not None:
        metrics.queue_rows.labels(writer.name).set(writer.queued_rows)
    return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)
