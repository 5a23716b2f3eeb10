"""OTLP/HTTP: `POST /v1/traces` in protobuf or JSON, answered in the request's encoding."""



import json
import zlib
from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from google.rpc import code_pb2, status_pb2
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceResponse,
)
from starlette.requests import ClientDisconnect

from schemas.errors import (
    AgentwatchError,
    AuthError,
    DecodeError,
    Overloaded,
    PayloadTooLarge,
    StoreError,
    UnsupportedMediaType,
)

from ._decode import parse_json, parse_protobuf
from ._ingest import Ingestor, request_digest

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
_PROTOBUF_TYPES = {"application/x-protobuf", "application/protobuf"}

_RPC_CODES = {
    400: code_pb2.INVALID_ARGUMENT,
    401: code_pb2.UNAUTHENTICATED,
    413: code_pb2.RESOURCE_EXHAUSTED,
    415: code_pb2.INVALID_ARGUMENT,
    429: code_pb2.RESOURCE_EXHAUSTED,
    503: code_pb2.UNAVAILABLE,
    500: code_pb2.INTERNAL,
}


def otlp_router(
    get_ingestor: Callable[..., Ingestor],
    get_tenant: Callable[[str | None], str],
    max_body_bytes: int,
) -> APIRouter:
    """The receiver; dependencies are injected so the app decides where spans go."""
    router = APIRouter(tags=["otlp"])

    @router.post(
        "/v1/traces",
        summary="OTLP/HTTP trace export (protobuf or JSON)",
        response_class=Response,
        responses={
            200: {"description": "ExportTraceServiceResponse (partial_success when spans were rejected)"},
            400: {"description": "undecodable body (google.rpc.Status)"},
            401: {"description": "missing or invalid API key"},
            413: {"description": "body above the size limit"},
            415: {"description": "unsupported content type or encoding"},
            429: {"description": "write queue full; retry after Retry-After seconds"},
            503: {"description": "store and spool unavailable; retry later"},
        },
    )
    async def export(
        request: Request,
        ingestor: Annotated[Ingestor, Depends(get_ingestor)],
    ) -> Response:
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        as_json = content_type == JSON
        try:
            if not as_json and content_type not in _PROTOBUF_TYPES:
                raise UnsupportedMediaType(
                    f"unsupported content type {content_type or '(none)'!r}: "
                    f"send {PROTOBUF} or {JSON}"
                )
            tenant = get_tenant(request.headers.get("authorization"))
            body = await _read_body(request, max_body_bytes)
            otlp = parse_json(body) if as_json else parse_protobuf(body)
            decoded = await ingestor.export(
                otlp, tenant, request_digest(tenant, body), "http"
            )
        except AgentwatchError as exc:
            ingestor.metrics.requests_rejected.labels(type(exc).__name__).inc()
            return _error(exc, as_json)
        answer = ExportTraceServiceResponse()
        if decoded.rejected_count:
            answer.partial_success.rejected_spans = decoded.rejected_count
            answer.partial_success.error_message = decoded.rejection_message()
        if as_json:
            payload: dict[str, object] = {}
            if decoded.rejected_count:
                payload["partialSuccess"] = {
                    "rejectedSpans": str(decoded.rejected_count),
                    "errorMessage": decoded.rejection_message(),
                }
            return Response(json.dumps(payload), media_type=JSON)
        return Response(answer.SerializeToString(), media_type=PROTOBUF)

    return router


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge(f"request body of {declared} bytes is above the {limit}-byte limit")
    chunks = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise PayloadTooLarge(f"request body is above the {limit}-byte limit")
            chunks.append(chunk)
    except ClientDisconnect:
        raise DecodeError("the client disconnected before sending the whole body") from None
    body = b"".join(chunks)
    encoding = request.headers.get("content-encoding", "identity").strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding != "gzip":
        raise UnsupportedMediaType(f"unsupported content encoding {encoding!r}: use gzip or none")
    return _gunzip(body, limit)


def _gunzip(body: bytes, limit: int) -> bytes:
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(body, limit + 1)
    except zlib.error as exc:
        raise DecodeError(f"body is not valid gzip: {exc}") from None
    if len(out) > limit or inflater.unconsumed_tail:
        raise PayloadTooLarge(f"decompressed body is above the {limit}-byte limit")
    if not inflater.eof:
        raise DecodeError("gzip body is truncated")
    return out


def _error(exc: AgentwatchError, as_json: bool) -> Response:
    status = 503 if isinstance(exc, StoreError) else getattr(exc, "http_status", 500)
    headers = {}
    if isinstance(exc, Overloaded):
        headers["Retry-After"] = str(exc.retry_after_s)
    elif status == 503:
        headers["Retry-After"] = "5"
    elif isinstance(exc, AuthError):
        headers["WWW-Authenticate"] = "Bearer"
    code = _RPC_CODES.get(status, code_pb2.INTERNAL)
    message = str(exc)
    if as_json:
        return Response(
            json.dumps({"code": code, "message": message}),
            status_code=status, media_type=JSON, headers=headers,
        )
    body = status_pb2.Status(code=code, message=message).SerializeToString()
    return Response(body, status_code=status, media_type=PROTOBUF, headers=headers)
