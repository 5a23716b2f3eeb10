"""The path every OTLP request takes after its transport: decode, check, hand off.

Shared by the HTTP and gRPC receivers. A request is acknowledged only when
its spans are durable. A retried request (same tenant, same bytes) is
recognised by its digest and not stored twice, whether the first attempt is
still in flight or done.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections import OrderedDict
from concurrent.futures import Future

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ._decode import Decoded, to_columns
from ._metrics import Metrics
from ._sink import SpanBatch
from ._writer import BatchWriter

log = logging.getLogger("agentwatch.collector")


def request_digest(tenant: str, body: bytes) -> str:
    return hashlib.blake2b(tenant.encode() + b"\0" + body, digest_size=16).hexdigest()


class Ingestor:
    def __init__(
        self,
        writer: BatchWriter[SpanBatch],
        metrics: Metrics,
        max_attribute_chars: int = 32_768,
        remembered_requests: int = 100_000,
    ) -> None:
        self._writer = writer
        self.metrics = metrics
        self._max_attribute_chars = max_attribute_chars
        self._remembered = remembered_requests
        self._done: OrderedDict[str, None] = OrderedDict()
        self._inflight: dict[str, Future[None]] = {}

    def remember(self, digests: set[str]) -> None:
        """Seed the de-duplication memory (receipts read back at start-up)."""
        for digest in digests:
            self._mark_done(digest)

    async def export(
        self, request: ExportTraceServiceRequest, tenant: str, digest: str, transport: str
    ) -> Decoded:
        decoded = to_columns(request, tenant, self._max_attribute_chars)
        accepted = len(decoded.columns)
        self.metrics.spans_received.labels(transport).inc(accepted + decoded.rejected_count)
        for reason, count in decoded.rejected.items():
            self.metrics.spans_rejected.labels(reason).inc(count)
        if not accepted:
            return decoded
        if digest in self._done:
            self.metrics.duplicate_requests.inc()
            self.metrics.spans_accepted.labels(transport).inc(accepted)
            return decoded
        future = self._inflight.get(digest)
        if future is None:
            batch = SpanBatch(decoded.columns, [(digest, tenant)])
            future = self._writer.submit(batch, accepted)  # raises Overloaded when full
            self._inflight[digest] = future
            future.add_done_callback(lambda f: self._settle(digest, f))
        else:
            self.metrics.duplicate_requests.inc()
        # shielded: a client that goes away must not cancel a write others may share
        await asyncio.shield(asyncio.wrap_future(future))
        self.metrics.spans_accepted.labels(transport).inc(accepted)
        return decoded

    def _settle(self, digest: str, future: Future[None]) -> None:
        # mark done before leaving in-flight, so a concurrent retry sees one or the other
        if not future.cancelled() and future.exception() is None:
            self._mark_done(digest)
        self._inflight.pop(digest, None)

    def _mark_done(self, digest: str) -> None:
        self._done[digest] = None
        self._done.move_to_end(digest)
        while len(self._done) > self._remembered:
            self._done.popitem(last=False)
