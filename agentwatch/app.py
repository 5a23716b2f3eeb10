"""The app factory: one FastAPI application wiring store, writer, receivers and API."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

import api
import web
from collector import (
    BatchWriter,
    Ingestor,
    Metrics,
    SpanBatch,
    SpanCodec,
    Spool,
    build_grpc_server,
    otlp_router,
)
from evalcenter import Harness, HarnessSettings
from evaluators import RunnerMetrics, StreamingRunner
from schemas.errors import StoreError, StoreUnavailable, UsageError
from store import Store
from tenancy import KeyRing, KeysFile

from .settings import Settings

log = logging.getLogger("agentwatch")


@dataclass
class Parts:
    """What the service is made of; built once per app."""

    settings: Settings
    store: Store
    metrics: Metrics
    writer: BatchWriter[SpanBatch]
    ingestor: Ingestor
    keyring: KeyRing


def build_keyring(settings: Settings) -> KeyRing:
    """Keys are required when any exist or when listening beyond loopback; refuse to start
    beyond loopback with no keys."""
    keys_file = KeysFile(str(settings.keys_path))
    active = [k for k in keys_file.load() if k.active]
    required = settings.auth.required
    if required is None:
        required = bool(active) or not settings.loopback_only
    if not settings.loopback_only and not active:
        raise UsageError(
            f"refusing to listen on {settings.server.host} without API keys: create one with "
            "`agentwatch keys create --tenant NAME`, or bind to 127.0.0.1"
        )
    return KeyRing(keys_file, required=required)


def build_parts(settings: Settings) -> Parts:
    metrics = Metrics()
    store = Store(settings.dsn, database=settings.store.database, ttl_days=settings.store.ttl_days)
    try:
        spool = Spool(str(settings.spool_dir))
    except OSError as exc:
        raise UsageError(f"data directory {settings.data_dir} is not writable: {exc}") from None
    w = settings.writer
    codec = SpanCodec(store)
    writer: BatchWriter[SpanBatch] = BatchWriter(
        "spans", codec, metrics, spool,
        max_batch_rows=w.max_batch_rows, flush_interval_ms=w.flush_interval_ms,
        max_queue_rows=w.max_queue_rows, retry_interval_ms=w.retry_interval_ms,
    )
    ingestor = Ingestor(writer, metrics, settings.ingest.max_attribute_chars)
    codec.on_inserted = ingestor.remember
    for spooled in spool.pending():  # acknowledged before a restart, not yet in ClickHouse
        ingestor.remember(SpanCodec.receipts_of(spooled.read()))
    return Parts(settings, store, metrics, writer, ingestor, build_keyring(settings))


def create_app(settings: Settings, parts: Parts | None = None) -> FastAPI:
    parts = parts or build_parts(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        retry_task = None
        app.state.store_ready = False
        try:
            await asyncio.to_thread(_open_store, app, parts)
        except StoreUnavailable as exc:
            log.error("store unreachable at start-up (%s); spans go to the spool until it is back", exc)
            retry_task = asyncio.create_task(_reopen_until_ready(app, parts))
        parts.writer.start()
        grpc_server = await _start_grpc(parts)
        app.state.grpc_server = grpc_server
        harness = app.state.harness
        if not harness.settings.collector_url and settings.server.http_port:
            harness.settings.collector_url = f"http://{settings.server.host}:{settings.server.http_port}"
        if app.state.store_ready:
            failed = await harness.fail_interrupted_runs()
            if failed:
                log.warning("marked %d interrupted eval run(s) failed", failed)
        stop_scoring = asyncio.Event()
        scoring = None
        if settings.evaluation.enabled:
            runner = StreamingRunner(parts.store, settings.evaluation.runner_settings(),
                                     RunnerMetrics(parts.metrics.registry))
            app.state.runner = runner
            scoring = asyncio.create_task(runner.follow(stop_scoring))
        try:
            yield
        finally:
            await harness.close()
            stop_scoring.set()
            if scoring is not None:
                await scoring
            if retry_task:
                retry_task.cancel()
            if grpc_server is not None:
                await grpc_server.stop(grace=5)
            flushed = await asyncio.to_thread(parts.writer.shutdown, 30.0)
            if not flushed:
                log.error("shutdown: the write queue did not drain in 30 s")
            parts.store.close()

    app = FastAPI(
        title="agentwatch",
        version="0.1.0",
        summary="Observability and online evaluation for LLM agents",
        lifespan=lifespan,
    )
    @app.exception_handler(StoreError)
    async def store_error(_request: Request, exc: StoreError) -> JSONResponse:
        """A store failure behind any API route: a clear 503/500, never a bare stack trace."""
        if isinstance(exc, StoreUnavailable):
            return JSONResponse({"detail": f"the store is unavailable: {exc}"}, status_code=503,
                                headers={"Retry-After": "5"})
        return JSONResponse({"detail": f"the store refused the request: {exc}"}, status_code=500)

    app.state.store = parts.store
    app.state.ingestor = parts.ingestor
    app.state.metrics = parts.metrics
    app.state.keyring = parts.keyring
    app.state.writer = parts.writer
    app.state.before_shutdown = parts.writer.drain
    e = settings.eval
    app.state.harness = Harness(parts.store, HarnessSettings(
        collector_url=e.collector_url, grader_base_url=e.grader_base_url, grader_model=e.grader_model,
        grader_api_key=os.environ.get(e.grader_api_key_env) if e.grader_api_key_env else None,
        concurrency=e.concurrency, workspace=settings.data_dir / "eval-workspaces",
        allow_private_fetch=e.allow_private_fetch))
    app.include_router(
        otlp_router(api.get_ingestor, parts.keyring.tenant_for, settings.server.max_body_bytes)
    )
    app.include_router(api.health.router)
    app.include_router(api.traces.router)
    app.include_router(api.scores.router)
    app.include_router(api.eval.router)
    app.include_router(web.router)
    return app


def _open_store(app: FastAPI, parts: Parts) -> None:
    applied = parts.store.open()
    if applied:
        log.info("migrations applied: %s", ", ".join(applied))
    parts.ingestor.remember(parts.store.recent_receipts(parts.settings.ingest.dedup_window_s))
    app.state.store_ready = True


async def _reopen_until_ready(app: FastAPI, parts: Parts) -> None:
    while True:
        await asyncio.sleep(5)
        try:
            await asyncio.to_thread(_open_store, app, parts)
            log.info("store reachable again")
            return
        except StoreError as exc:
            log.warning("store still unavailable: %s", exc)


async def _start_grpc(parts: Parts) -> grpc.aio.Server | None:
    server_settings = parts.settings.server
    if not server_settings.grpc_enabled:
        return None
    address = f"{server_settings.host}:{server_settings.grpc_port}"
    try:
        server, port = build_grpc_server(
            parts.ingestor, parts.keyring.tenant_for, address, server_settings.max_body_bytes
        )
    except RuntimeError as exc:
        raise UsageError(f"cannot listen for OTLP/gRPC on {address}: {exc}") from None
    await server.start()
    parts.settings.server.grpc_port = port
    log.info("OTLP/gRPC listening on %s:%d", server_settings.host, port)
    return server
