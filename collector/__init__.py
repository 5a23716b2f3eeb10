"""OTLP in, ClickHouse out: receivers, the shared decoder, the batch writer and its spool."""

from ._decode import Decoded, parse_json, parse_protobuf, to_columns
from ._grpc import build_grpc_server
from ._http import otlp_router
from ._ingest import Ingestor, request_digest
from ._metrics import Metrics
from ._sink import SpanBatch, SpanCodec
from ._spool import Spool
from ._writer import BatchCodec, BatchWriter

__all__ = [
    "BatchCodec",
    "BatchWriter",
    "Decoded",
    "Ingestor",
    "Metrics",
    "SpanBatch",
    "SpanCodec",
    "Spool",
    "build_grpc_server",
    "otlp_router",
    "parse_json",
    "parse_protobuf",
    "request_digest",
    "to_columns",
]
