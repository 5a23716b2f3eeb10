"""The batch writer's contract, against the real embedded store."""

from __future__ import annotations

import time
import uuid
from concurrent.futures import wait
from pathlib import Path

import pytest

from collector import BatchWriter, Metrics, SpanBatch, SpanCodec, Spool, to_columns
from schemas.errors import Overloaded, StoreUnavailable
from store import Store

from .otlp import record_spans, request_of


def _batch(name: str = "s", traces: int = 1) -> tuple[SpanBatch, int]:
    spans = record_spans(traces=traces, tools=0, service=name)  # 2 spans a trace
    columns = to_columns(request_of(spans), "default", 1000).columns
    return SpanBatch(columns, [(uuid.uuid4().hex, "default")]), len(columns)


@pytest.fixture
def store(engine_path: Path) -> Store:
    s = Store(f"chdb://{engine_path}", database=f"w_{uuid.uuid4().hex[:10]}")
    s.open()
    return s


def _writer(store: Store, tmp_path: Path, **kw: int) -> BatchWriter[SpanBatch]:
    writer: BatchWriter[SpanBatch] = BatchWriter("spans", SpanCodec(store), Metrics(),
                                                 Spool(str(tmp_path / "spool")), **kw)
    writer.start()
    return writer


def _count(store: Store) -> int:
    return int(store.query_rows("SELECT count() FROM otel_traces")[0][0])


def test_size_trigger_flushes_without_waiting(store: Store, tmp_path: Path) -> None:
    writer = _writer(store, tmp_path, max_batch_rows=6, flush_interval_ms=60_000)
    futures = [writer.submit(*_batch(traces=1)) for _ in range(3)]
    done, _ = wait(futures, timeout=10)
    assert len(done) == 3 and _count(store) == 6
    writer.shutdown()


def test_time_trigger(store: Store, tmp_path: Path) -> None:
    writer = _writer(store, tmp_path, max_batch_rows=10_000, flush_interval_ms=50)
    started = time.monotonic()
    writer.submit(*_batch()).result(timeout=10)
    assert time.monotonic() - started < 5 and _count(store) == 2
    writer.shutdown()


def test_bounded_queue_refuses_instead_of_growing(store: Store, tmp_path: Path) -> None:
    writer = _writer(store, tmp_path, max_batch_rows=10_000, flush_interval_ms=60_000,
                     max_queue_rows=5)
    first = writer.submit(*_batch(traces=2))
    with pytest.raises(Overloaded):
        writer.submit(*_batch(traces=1))
    assert writer.shutdown(timeout_s=10)
    first.result(timeout=1)
    assert _count(store) == 4
    with pytest.raises(Overloaded, match="shutting down"):
        writer.submit(*_batch())


def test_unreachable_store_spools_then_replays_in_order(
    store: Store, tmp_path: Path, engine_path: Path
) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    down = Store(f"http://127.0.0.1:{port}", database="nowhere")
    writer = _writer(down, tmp_path, max_batch_rows=2, flush_interval_ms=10)
    for name in ("first", "second", "third"):
        writer.submit(*_batch(name)).result(timeout=30)  # durable in the spool
    writer.shutdown(timeout_s=5)
    spooled = Spool(str(tmp_path / "spool")).pending()
    assert [b.seq for b in spooled] == [1, 2, 3]

    back = _writer(store, tmp_path, max_batch_rows=2, flush_interval_ms=10,
                   retry_interval_ms=50)
    deadline = time.monotonic() + 20
    while Spool(str(tmp_path / "spool")).pending() and time.monotonic() < deadline:
        time.sleep(0.05)
    back.shutdown()
    order = store.query_rows(
        "SELECT ServiceName FROM otel_traces GROUP BY ServiceName, _part "
        "ORDER BY toUInt64(splitByChar('_', _part)[2])")
    assert [r[0] for r in order] == ["first", "second", "third"]
    assert _count(store) == 6


def test_without_spool_an_outage_fails_the_future(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    writer: BatchWriter[SpanBatch] = BatchWriter(
        "spans", SpanCodec(Store(f"http://127.0.0.1:{port}")), Metrics(), None,
        flush_interval_ms=10)
    writer.start()
    with pytest.raises(StoreUnavailable):
        writer.submit(*_batch()).result(timeout=30)
    writer.shutdown()
