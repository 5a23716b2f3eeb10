"""Where accepted spans go: the store, through the batch writer's codec."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, fields

from schemas import SpanColumns
from store import Store


@dataclass
class SpanBatch:
    """Spans of one accepted request, and the receipt that makes its retry a no-op."""

    columns: SpanColumns
    receipts: list[tuple[str, str]] = field(default_factory=list)


class SpanCodec:
    """Inserts span batches into the store; serializes them for the spool.

    `on_inserted` hears the receipts of every batch that reached ClickHouse,
    replayed ones included, so the de-duplication memory stays complete.
    """

    def __init__(self, store: Store, on_inserted: Callable[[set[str]], None] | None = None) -> None:
        self._store = store
        self.on_inserted = on_inserted

    def insert(self, payloads: list[SpanBatch], batch_id: str) -> None:
        columns = payloads[0].columns if len(payloads) == 1 else SpanColumns.concat(
            [p.columns for p in payloads]
        )
        self._store.insert_spans(columns, token=batch_id)
        receipts = [r for p in payloads for r in p.receipts]
        self._store.insert_receipts(receipts)
        if self.on_inserted is not None:
            self.on_inserted({digest for digest, _ in receipts})

    def encode(self, payloads: list[SpanBatch]) -> bytes:
        columns = SpanColumns.concat([p.columns for p in payloads])
        document = {
            "receipts": [r for p in payloads for r in p.receipts],
            "columns": {f.name: getattr(columns, f.name) for f in fields(columns)},
        }
        return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()

    @staticmethod
    def receipts_of(data: bytes) -> set[str]:
        """Digests of a spooled batch (read at start-up, before replay)."""
        return {digest for digest, _ in json.loads(data)["receipts"]}

    def decode(self, data: bytes) -> list[SpanBatch]:
        document = json.loads(data)
        columns = SpanColumns(**document["columns"])
        return [SpanBatch(columns, [tuple(r) for r in document["receipts"]])]
