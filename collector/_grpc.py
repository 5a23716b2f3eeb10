"""OTLP/gRPC: `TraceService/Export`, sharing the decoder and sink with OTLP/HTTP.

The handler takes the raw request bytes (identity deserializer) so a retried
request hashes to the same digest as on the HTTP path.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceResponse,
)

from schemas.errors import (
    AgentwatchError,
    AuthError,
    Overloaded,
    PayloadTooLarge,
    StoreError,
)

from ._decode import parse_protobuf
from ._ingest import Ingestor, request_digest

log = logging.getLogger("agentwatch.collector")

SERVICE = "opentelemetry.proto.collector.trace.v1.TraceService"


class _TraceService:
    def __init__(self, ingestor: Ingestor, get_tenant: Callable[[str | None], str]) -> None:
        self._ingestor = ingestor
        self._get_tenant = get_tenant

    async def export(self, body: bytes, context: grpc.aio.ServicerContext) -> bytes:
        metadata = dict(context.invocation_metadata() or ())
        try:
            tenant = self._get_tenant(_as_text(metadata.get("authorization")))
            request = parse_protobuf(body)
            decoded = await self._ingestor.export(
                request, tenant, request_digest(tenant, body), "grpc"
            )
        except AgentwatchError as exc:
            self._ingestor.metrics.requests_rejected.labels(type(exc).__name__).inc()
            await _abort(context, exc)
            raise AssertionError("unreachable") from exc  # abort raises
        answer = ExportTraceServiceResponse()
        if decoded.rejected_count:
            answer.partial_success.rejected_spans = decoded.rejected_count
            answer.partial_success.error_message = decoded.rejection_message()
        return answer.SerializeToString()


def _as_text(value: str | bytes | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


async def _abort(context: grpc.aio.ServicerContext, exc: AgentwatchError) -> None:
    if isinstance(exc, AuthError):
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, str(exc))
    if isinstance(exc, PayloadTooLarge):
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc))
    if isinstance(exc, Overloaded | StoreError):
        delay = exc.retry_after_s if isinstance(exc, Overloaded) else 5
        detail = any_pb2.Any()
        detail.Pack(error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=delay)))
        status = status_pb2.Status(code=code_pb2.UNAVAILABLE, message=str(exc), details=[detail])
        await context.abort(
            grpc.StatusCode.UNAVAILABLE,
            str(exc),
            trailing_metadata=(("grpc-status-details-bin", status.SerializeToString()),),
        )
    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))


def build_grpc_server(
    ingestor: Ingestor,
    get_tenant: Callable[[str | None], str],
    address: str,
    max_message_bytes: int,
) -> tuple[grpc.aio.Server, int]:
    """A gRPC server bound to `address`; returns it and the port it got."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", max_message_bytes),
            ("grpc.so_reuseport", 0),
        ]
    )
    service = _TraceService(ingestor, get_tenant)
    handler = grpc.method_handlers_generic_handler(
        SERVICE,
        {
            "Export": grpc.unary_unary_rpc_method_handler(
                service.export,
                request_deserializer=None,
                response_serializer=None,
            )
        },
    )
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port(address)
    return server, port
