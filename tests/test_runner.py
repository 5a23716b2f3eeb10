"""The streaming runner: quiet traces scored once, crash and restart, late spans, rootless traces,
shards and backfill — against the real store, spans sent over real OTLP/HTTP."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from evaluators import RunnerSettings, StreamingRunner

from .conftest import Service
from .otlp import protobuf_body, record_spans, trace_ids

PB = {"content-type": "application/x-protobuf"}


def send(service: Service, spans) -> None:  # type: ignore[no-untyped-def]
    response = httpx.post(f"{service.url}/v1/traces", content=protobuf_body(spans), headers=PB)
    assert response.status_code == 200


def runner(service: Service, **kw: object) -> StreamingRunner:
    settings = RunnerSettings(grace_s=0.6, incomplete_after_s=3.0, **kw)  # type: ignore[arg-type]
    return StreamingRunner(service.store, settings)


def once(r: StreamingRunner) -> int:
    return asyncio.run(r.run_once())


def score_rows(service: Service, final: bool = True) -> list[tuple]:  # type: ignore[type-arg]
    return service.store.query_rows(
        f"SELECT TraceId, Name, Value FROM scores {'FINAL' if final else ''} ORDER BY TraceId, Name")


def test_quiet_traces_are_scored_once(service: Service) -> None:
    spans = record_spans(traces=5)
    send(service, spans)
    r = runner(service)
    assert once(r) == 0  # not quiet yet
    time.sleep(0.8)
    assert once(r) == 5
    assert once(r) == 0  # the watermark moved past them
    rows = score_rows(service)
    assert {t for t, _, _ in rows} == set(trace_ids(spans))
    assert len(rows) == len({(t, n) for t, n, _ in rows})


class _CrashBeforeWatermark(StreamingRunner):
    """Dies at the worst moment: scores written, watermark not yet saved."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.store = _Failing(self.store)  # type: ignore[assignment]


class _Failing:
    def __init__(self, store) -> None:  # type: ignore[no-untyped-def]
        self._store = store

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        if name == "set_watermark":
            raise SystemExit("killed")
        return getattr(self._store, name)


def test_crash_and_restart_skips_nothing_and_doubles_nothing(service: Service) -> None:
    first, second = record_spans(traces=3), record_spans(traces=4)
    send(service, first)
    time.sleep(0.8)
    assert once(runner(service)) == 3
    send(service, second)
    time.sleep(0.8)
    crashing = _CrashBeforeWatermark(service.store, RunnerSettings(grace_s=0.6))
    with pytest.raises(SystemExit):
        once(crashing)
    restarted = runner(service)  # a new process: reads the persisted watermark
    assert once(restarted) == 4  # the second batch again (already scored once), nothing else
    assert once(restarted) == 0
    rows = score_rows(service)
    assert {t for t, _, _ in rows} == set(trace_ids(first + second))
    assert len(rows) == len({(t, n) for t, n, _ in rows})  # no score doubled


def test_late_span_reopens_its_trace(service: Service) -> None:
    spans = record_spans(traces=1, tools=3)
    late = spans[1]  # a tool span, sent after the trace was scored
    send(service, [s for s in spans if s is not late])
    time.sleep(0.8)
    r = runner(service)
    assert once(r) == 1
    before = dict(((n, v) for _, n, v in score_rows(service)))
    assert before["efficiency.tool_calls"] == 2
    send(service, [late])
    time.sleep(0.8)
    assert once(r) == 1
    after = dict(((n, v) for _, n, v in score_rows(service)))
    assert after["efficiency.tool_calls"] == 3
    names = [n for _, n, _ in score_rows(service)]
    assert len(names) == len(set(names))


def test_trace_without_root_is_scored_as_incomplete_after_timeout(service: Service) -> None:
    spans = record_spans(traces=1)
    root = next(s for s in spans if s.parent is None)
    send(service, [s for s in spans if s is not root])
    time.sleep(0.8)
    r = runner(service)
    assert once(r) == 0  # quiet, but no root yet: wait
    time.sleep(3.0)
    assert once(r) == 1
    names = {n: v for _, n, v in score_rows(service)}
    assert names["trace.incomplete"] == 1


def test_shards_split_the_work(service: Service) -> None:
    spans = record_spans(traces=12)
    send(service, spans)
    time.sleep(0.8)
    a, b = runner(service, shard=0, shards=2), runner(service, shard=1, shards=2)
    scored_a, scored_b = once(a), once(b)
    assert scored_a + scored_b == 12 and scored_a and scored_b
    assert len({t for t, _, _ in score_rows(service)}) == 12
    assert once(a) == once(b) == 0


def test_backfill_scores_a_time_range(service: Service) -> None:
    spans = record_spans(traces=3)
    send(service, spans)
    now = time.time_ns()
    r = runner(service)
    assert asyncio.run(r.backfill(now - 3600 * 10**9, now + 10**9)) == 3
    assert asyncio.run(r.backfill(now - 7200 * 10**9, now - 3600 * 10**9)) == 0
    assert len({t for t, _, _ in score_rows(service)}) == 3
