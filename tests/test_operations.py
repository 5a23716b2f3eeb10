"""Health, readiness, metrics, and a shutdown that flushes what was accepted."""

from __future__ import annotations

import threading
import time

import httpx

from agentwatch.settings import WriterSettings

from .conftest import Service, make_settings, start_service
from .otlp import protobuf_body, record_spans

PB = {"content-type": "application/x-protobuf"}


def test_health_and_readiness(service: Service) -> None:
    assert httpx.get(f"{service.url}/healthz").json() == {"status": "ok"}
    ready = httpx.get(f"{service.url}/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"ready": True, "store_reachable": True, "pending_migrations": []}


def test_metrics_count_what_happened(service: Service) -> None:
    body = protobuf_body(record_spans(traces=2))
    httpx.post(f"{service.url}/v1/traces", content=body, headers=PB)
    httpx.post(f"{service.url}/v1/traces", content=body, headers=PB)  # a retry
    httpx.post(f"{service.url}/v1/traces", content=b"junk", headers=PB)
    text = httpx.get(f"{service.url}/metrics").text
    assert 'agentwatch_spans_received_total{transport="http"} 16.0' in text
    assert 'agentwatch_spans_accepted_total{transport="http"} 16.0' in text
    assert "agentwatch_otlp_duplicate_requests_total 1.0" in text
    assert 'agentwatch_otlp_requests_rejected_total{reason="DecodeError"} 1.0' in text
    assert 'agentwatch_writer_batch_rows_count{writer="spans"} 1.0' in text
    assert "agentwatch_writer_write_seconds_bucket" in text
    assert 'agentwatch_writer_queue_rows{writer="spans"} 0.0' in text
    assert 'agentwatch_spool_bytes{writer="spans"} 0.0' in text


def test_graceful_shutdown_flushes_the_queue(tmp_path, engine_path) -> None:  # type: ignore[no-untyped-def]
    settings = make_settings(tmp_path / "data", engine_path,
                             writer=WriterSettings(flush_interval_ms=60_000, max_batch_rows=10_000))
    svc = start_service(settings)
    results: list[int] = []
    sender = threading.Thread(target=lambda: results.append(httpx.post(
        f"{svc.url}/v1/traces", content=protobuf_body(record_spans(traces=3)), headers=PB,
        timeout=60).status_code))
    sender.start()
    deadline = time.monotonic() + 10
    while svc.parts.writer.queued_rows == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert svc.parts.writer.queued_rows == 12
    svc.server.stop()  # long before the 60 s flush interval
    sender.join(30)
    assert results == [200]
    from store import Store

    check = Store(settings.dsn, settings.store.database)
    assert check.query_rows("SELECT count() FROM otel_traces")[0][0] == 12
