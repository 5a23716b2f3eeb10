"""Prometheus metrics of one agentwatch process, on a registry of its own.

A registry per app (not the global one) keeps several apps in one test process
from colliding, and lets /metrics show exactly this service.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.spans_received = Counter(
            "agentwatch_spans_received", "Spans received over OTLP", ["transport"], registry=r
        )
        self.spans_accepted = Counter(
            "agentwatch_spans_accepted", "Spans acknowledged as durable", ["transport"], registry=r
        )
        self.spans_rejected = Counter(
            "agentwatch_spans_rejected", "Spans refused, by reason", ["reason"], registry=r
        )
        self.requests_rejected = Counter(
            "agentwatch_otlp_requests_rejected", "OTLP requests refused, by reason", ["reason"],
            registry=r,
        )
        self.duplicate_requests = Counter(
            "agentwatch_otlp_duplicate_requests",
            "Retried OTLP requests recognised and not stored twice", registry=r,
        )
        self.batch_size = Histogram(
            "agentwatch_writer_batch_rows", "Rows per batch written", ["writer"], registry=r,
            buckets=(1, 10, 100, 500, 1000, 2500, 5000, 10000, 25000, 50000),
        )
        self.write_seconds = Histogram(
            "agentwatch_writer_write_seconds", "Time to write one batch to ClickHouse", ["writer"],
            registry=r, buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
        )
        self.write_failures = Counter(
            "agentwatch_writer_failures", "Batches ClickHouse did not take", ["writer"], registry=r
        )
        self.queue_rows = Gauge(
            "agentwatch_writer_queue_rows", "Rows waiting in the write queue", ["writer"], registry=r
        )
        self.spool_bytes = Gauge(
            "agentwatch_spool_bytes", "Bytes waiting in the local spool", ["writer"], registry=r
        )
        self.spool_batches = Gauge(
            "agentwatch_spool_batches", "Batches waiting in the local spool", ["writer"], registry=r
        )
