"""The streaming runner: scores traces once they are complete and quiet.

"The processor decides when, the exporter decides where": this runner only
decides *when* a trace is ready (its root has arrived and no span came for
`grace_s`, or it never got a root and `incomplete_after_s` passed), runs the
enabled evaluators and hands the scores to the store.

Work is sharded by `cityHash64(TraceId) % shards`, so several runners split
the load against one ClickHouse server. Each shard keeps a watermark (the
ingestion time up to which every trace is scored) in ClickHouse; it moves only
after the scores are written, so a crash re-scores a little (scores are keyed,
so nothing doubles) and skips nothing. A late span has a newer ingestion time,
so its trace comes back and is scored again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from schemas import Score, Severity, Trace
from store import Candidate, Store

from ._base import Evaluator
from ._registry import DEFAULT_EVALUATORS, EvaluatorConfig, create

log = logging.getLogger("agentwatch.evaluators")


@dataclass
class RunnerSettings:
    grace_s: float = 3.0
    incomplete_after_s: float = 60.0
    poll_interval_s: float = 1.0
    shard: int = 0
    shards: int = 1
    batch_traces: int = 500
    evaluators: list[EvaluatorConfig] = field(
        default_factory=lambda: [EvaluatorConfig(name=n) for n in DEFAULT_EVALUATORS])


class RunnerMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.traces = Counter("agentwatch_evaluator_traces_scored", "Traces scored", registry=registry)
        self.scores = Counter("agentwatch_evaluator_scores_written", "Scores written", registry=registry)
        self.lag = Gauge("agentwatch_evaluator_lag_seconds",
                         "Now minus the watermark: how far behind scoring is", registry=registry)
        self.batch_seconds = Histogram("agentwatch_evaluator_batch_seconds", "Time to score one batch",
                                       registry=registry)
        self.failures = Counter("agentwatch_evaluator_failures", "Runner passes that failed",
                                registry=registry)


class StreamingRunner:
    def __init__(self, store: Store, settings: RunnerSettings | None = None,
                 metrics: RunnerMetrics | None = None,
                 clock_ms: Callable[[], int] | None = None) -> None:
        self.store = store
        self.settings = settings or RunnerSettings()
        self.metrics = metrics or RunnerMetrics(CollectorRegistry())
        self._clock_ms = clock_ms or store.now_ms
        self._configs = [c for c in self.settings.evaluators if c.enabled]
        self._evaluators: list[tuple[EvaluatorConfig, Evaluator]] = [
            (c, create(c.name, c.options)) for c in self._configs]
        self._watermark: int | None = None

    # -- scoring ----------------------------------------------------------
    async def score(self, traces: list[Trace],
                    incomplete: set[str] | None = None) -> list[tuple[Trace, Score]]:
        """Run the enabled evaluators on traces (the offline harness calls this too)."""
        out: list[tuple[Trace, Score]] = []
        pending = []
        for trace in traces:
            for config, ev in self._evaluators:
                if not config.applies_to(trace):
                    continue
                if ev.is_async:
                    pending.append((trace, ev.evaluate(trace)))
                else:
                    out.extend((trace, s) for s in ev.evaluate_now(trace))
        for (trace, _), scores in zip(pending, await asyncio.gather(*(job for _, job in pending)),
                                      strict=True):
            out.extend((trace, s) for s in scores)
        for trace in traces:
            if incomplete and trace.trace_id in incomplete:
                out.append((trace, Score(
                    name="trace.incomplete", value=1, label="incomplete", severity=Severity.warning,
                    explanation="no root span arrived before the incomplete timeout",
                    evaluator="runner", evaluator_version="1")))
        return out

    async def _score_keys(self, keys: list[tuple[str, str]], incomplete: set[str]) -> int:
        scored_traces = 0
        for start in range(0, len(keys), self.settings.batch_traces):
            chunk = keys[start:start + self.settings.batch_traces]
            started = time.perf_counter()
            traces = await asyncio.to_thread(self.store.load_traces, chunk)
            scored = await self.score(traces, incomplete)
            await asyncio.to_thread(self.store.insert_scores, scored, self._clock_ms())
            self.metrics.batch_seconds.observe(time.perf_counter() - started)
            self.metrics.traces.inc(len(traces))
            self.metrics.scores.inc(len(scored))
            scored_traces += len(traces)
        return scored_traces

    # -- streaming ----------------------------------------------------------
    async def run_once(self) -> int:
        """One pass: score what became ready since the watermark; returns traces scored."""
        s = self.settings
        if self._watermark is None:
            self._watermark = await asyncio.to_thread(self.store.get_watermark, s.shard, s.shards) or 0
        now = await asyncio.to_thread(self._clock_ms)
        quiet_before = now - int(s.grace_s * 1000)
        abandoned_before = now - int(s.incomplete_after_s * 1000)
        candidates: list[Candidate] = await asyncio.to_thread(
            self.store.score_candidates, s.shard, s.shards, self._watermark, now)
        ready, incomplete = [], set()
        new_watermark = quiet_before
        for c in candidates:
            if c.last_ingested_ms > quiet_before:
                continue  # still receiving spans; its newest spans keep it above the watermark
            if c.has_root:
                ready.append(c)
            elif c.last_ingested_ms <= abandoned_before:
                ready.append(c)
                incomplete.add(c.trace_id)
            else:
                new_watermark = min(new_watermark, c.last_ingested_ms - 1)  # wait for its root
        scored = await self._score_keys([(c.tenant, c.trace_id) for c in ready], incomplete)
        if new_watermark > self._watermark:
            await asyncio.to_thread(self.store.set_watermark, s.shard, s.shards, new_watermark)
            self._watermark = new_watermark
        self.metrics.lag.set(max(0.0, (now - self._watermark) / 1000))
        return scored

    async def follow(self, stop: asyncio.Event) -> None:
        """Score continuously until `stop` is set; failures are logged, counted and retried."""
        while not stop.is_set():
            try:
                await self.run_once()
            except Exception as exc:
                self.metrics.failures.inc()
                log.error("evaluator pass failed: %s", exc)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.settings.poll_interval_s)

    async def backfill(self, since_ns: int, until_ns: int) -> int:
        """Score every trace that started in [since, until), leaving the watermark alone."""
        s = self.settings
        keys = await asyncio.to_thread(self.store.traces_between, since_ns, until_ns, s.shard, s.shards)
        return await self._score_keys(keys, set())
