"""A bounded batching writer in front of ClickHouse, with a spool behind it.

Callers `submit` a payload and get a future that resolves once the payload is
durable: inserted into ClickHouse, or fsynced to the local spool when
ClickHouse is unreachable. The writer thread flushes when a batch reaches
`max_batch_rows` or its oldest payload has waited `flush_interval_ms`. The
queue is bounded in rows; a full queue refuses new work (`Overloaded`) rather
than growing. While the spool holds batches, new batches go behind them so
replay keeps the order of acceptance.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from schemas.errors import Overloaded, StoreUnavailable

from ._metrics import Metrics
from ._spool import Spool

log = logging.getLogger("agentwatch.writer")

T = TypeVar("T")


class BatchCodec(Protocol[T]):
    """How a batch of payloads is inserted, and serialized for the spool."""

    def insert(self, payloads: list[T], batch_id: str) -> None: ...

    def encode(self, payloads: list[T]) -> bytes: ...

    def decode(self, data: bytes) -> list[T]: ...


@dataclass
class _Pending(Generic[T]):
    payload: T
    rows: int
    future: Future[None]
    enqueued_at: float = field(default_factory=time.monotonic)


class BatchWriter(Generic[T]):
    def __init__(
        self,
        name: str,
        codec: BatchCodec[T],
        metrics: Metrics,
        spool: Spool | None = None,
        max_batch_rows: int = 10_000,
        flush_interval_ms: int = 100,
        max_queue_rows: int = 200_000,
        retry_interval_ms: int = 2_000,
    ) -> None:
        self.name = name
        self._codec = codec
        self._metrics = metrics
        self._spool = spool
        self._max_batch_rows = max_batch_rows
        self._flush_interval_s = flush_interval_ms / 1000
        self._max_queue_rows = max_queue_rows
        self._retry_interval_s = retry_interval_ms / 1000
        self._queue: deque[_Pending[T]] = deque()
        self._queued_rows = 0
        self._cond = threading.Condition()
        self._stopping = False
        self._draining = False
        self._next_replay_at = 0.0
        # only this writer adds to its spool, so it knows when the spool is empty without
        # listing the directory on every batch
        self._spooled = spool is not None and bool(spool.pending())
        self._thread = threading.Thread(target=self._run, name=f"writer-{name}", daemon=True)
        self._update_spool_gauges()

    # -- public surface -------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def submit(self, payload: T, rows: int) -> Future[None]:
        """Queue a payload; the future resolves when it is durable."""
        future: Future[None] = Future()
        with self._cond:
            if self._stopping:
                raise Overloaded("the service is shutting down", retry_after_s=5)
            if self._queued_rows and self._queued_rows + rows > self._max_queue_rows:
                raise Overloaded(
                    f"write queue full ({self._queued_rows} rows waiting); retry later",
                    retry_after_s=1,
                )
            was_empty = not self._queue
            self._queue.append(_Pending(payload, rows, future))
            self._queued_rows += rows
            self._metrics.queue_rows.labels(self.name).set(self._queued_rows)
            if was_empty or self._queued_rows >= self._max_batch_rows:
                self._cond.notify()
        return future

    def drain(self) -> None:
        """Flush without waiting for the interval from now on (shutdown is coming)."""
        with self._cond:
            self._draining = True
            self._cond.notify()

    def shutdown(self, timeout_s: float = 30.0) -> bool:
        """Flush what is queued and stop; False if the flush did not finish in time."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
        if self._thread.is_alive():
            self._thread.join(timeout_s)
        return not self._thread.is_alive()

    @property
    def queued_rows(self) -> int:
        return self._queued_rows

    # -- the writer thread ---------------------------------------------
    def _run(self) -> None:
        while True:
            batch = self._next_batch()
            try:
                if batch is None:
                    self._replay_spool()
                    if self._stopping:
                        return
                    continue
                self._write(batch)
            except Exception as exc:  # the writer must outlive any one failure
                log.exception("writer %s: unexpected failure", self.name)
                self._metrics.write_failures.labels(self.name).inc()
                if batch is not None:
                    _resolve(batch, StoreUnavailable(f"write failed: {exc}"))

    def _next_batch(self) -> list[_Pending[T]] | None:
        with self._cond:
            while True:
                if self._queue:
                    age = time.monotonic() - self._queue[0].enqueued_at
                    if (
                        self._queued_rows >= self._max_batch_rows
                        or age >= self._flush_interval_s
                        or self._stopping
                        or self._draining
                    ):
                        return self._take()
                    self._cond.wait(self._flush_interval_s - age)
                elif self._stopping:
                    return None
                else:
                    self._cond.wait(self._retry_interval_s if self._spool_waiting() else None)
                    if not self._queue:
                        return None

    def _take(self) -> list[_Pending[T]]:
        batch: list[_Pending[T]] = []
        rows = 0
        while self._queue and (not batch or rows + self._queue[0].rows <= self._max_batch_rows):
            item = self._queue.popleft()
            batch.append(item)
            rows += item.rows
        self._queued_rows -= rows
        self._metrics.queue_rows.labels(self.name).set(self._queued_rows)
        return batch

    def _write(self, batch: list[_Pending[T]]) -> None:
        payloads = [p.payload for p in batch]
        rows = sum(p.rows for p in batch)
        batch_id = uuid.uuid4().hex
        error: BaseException | None = None
        if not self._replay_spool():
            error = StoreUnavailable("earlier batches are still waiting in the spool")
        else:
            try:
                self._insert(payloads, batch_id, rows)
            except StoreUnavailable as exc:
                error = exc
            except Exception as exc:
                log.error("writer %s: batch of %d rows refused: %s", self.name, rows, exc)
                self._metrics.write_failures.labels(self.name).inc()
                _resolve(batch, exc)
                return
        if error is not None:
            if self._spool is None:
                _resolve(batch, error)
                return
            try:
                self._spool.append(batch_id, self._codec.encode(payloads))
                self._spooled = True
            except OSError as exc:
                log.error("writer %s: spool write failed: %s", self.name, exc)
                _resolve(batch, StoreUnavailable(f"store unreachable and spool failed: {exc}"))
                return
            self._next_replay_at = min(self._next_replay_at, time.monotonic() + self._retry_interval_s)
            self._update_spool_gauges()
            log.warning("writer %s: store unavailable (%s); spooled %d rows", self.name, error, rows)
        _resolve(batch, None)

    def _insert(self, payloads: list[T], batch_id: str, rows: int) -> None:
        started = time.perf_counter()
        try:
            self._codec.insert(payloads, batch_id)
        except StoreUnavailable:
            self._metrics.write_failures.labels(self.name).inc()
            raise
        self._metrics.write_seconds.labels(self.name).observe(time.perf_counter() - started)
        self._metrics.batch_size.labels(self.name).observe(rows)

    def _spool_waiting(self) -> bool:
        return self._spooled

    def _replay_spool(self) -> bool:
        """Insert spooled batches oldest first; True when nothing waits ahead of new batches."""
        if self._spool is None or not self._spooled:
            return True
        try:
            pending = self._spool.pending()
        except OSError as exc:
            log.error("writer %s: cannot read the spool: %s", self.name, exc)
            return True  # nothing readable waits; new batches go straight to the store
        if not pending:
            self._spooled = False
            return True
        now = time.monotonic()
        if now < self._next_replay_at:
            return False
        for spooled in pending:
            try:
                payloads = self._codec.decode(spooled.read())
                self._insert(payloads, spooled.batch_id, 0)
            except StoreUnavailable:
                self._next_replay_at = time.monotonic() + self._retry_interval_s
                return False
            except Exception as exc:
                # a batch ClickHouse will never take must not block the others
                log.error("writer %s: spooled batch %s refused, set aside: %s",
                          self.name, spooled.path, exc)
                _set_aside(spooled.path)
                continue
            self._spool.remove(spooled)
            log.info("writer %s: replayed spooled batch %s", self.name, spooled.batch_id)
        self._spooled = False
        self._update_spool_gauges()
        return True

    def _update_spool_gauges(self) -> None:
        if self._spool is None:
            return
        try:
            pending = self._spool.pending()
            self._metrics.spool_batches.labels(self.name).set(len(pending))
            self._metrics.spool_bytes.labels(self.name).set(sum(b.size() for b in pending))
        except OSError:
            pass


def _resolve(batch: list[_Pending[T]], error: BaseException | None) -> None:
    for item in batch:
        if item.future.done():
            continue
        if error is None:
            item.future.set_result(None)
        else:
            item.future.set_exception(error)


def _set_aside(path: str) -> None:
    os.replace(path, path + ".rejected")
