"""The errors agentwatch raises, mapped to HTTP/gRPC/CLI answers at the edges.

    AgentwatchError
    ├── IngestError ............ the client sent something we will not store (4xx, not retried)
    │   ├── DecodeError ........ body is not OTLP (400 / INVALID_ARGUMENT)
    │   ├── PayloadTooLarge .... decompressed body above the limit (413 / RESOURCE_EXHAUSTED)
    │   └── UnsupportedMediaType  content type we do not speak (415)
    ├── AuthError .............. missing or unknown API key (401 / UNAUTHENTICATED)
    ├── Overloaded ............. write queue full; retry later (429 + Retry-After / UNAVAILABLE)
    ├── StoreError ............. ClickHouse said no
    │   ├── StoreUnavailable ... cannot reach it now; retryable, the spool takes over
    │   └── StoreLocked ........ the embedded data path is held by another process
    ├── UsageError ............. bad configuration or CLI use (exit code 2)
    ├── ModelError ............. an LLM provider call failed (see its own tree below)
    └── ToolError .............. a tool refused or failed; the model reads the message

Foreign exceptions (clickhouse-connect, chdb, OSError) are translated in
`store._client.translate_errors`, and nowhere else.
"""

from __future__ import annotations


class AgentwatchError(Exception):
    """Base of every error agentwatch raises on purpose."""


class IngestError(AgentwatchError):
    http_status = 400


class DecodeError(IngestError):
    http_status = 400


class PayloadTooLarge(IngestError):
    http_status = 413


class UnsupportedMediaType(IngestError):
    http_status = 415


class AuthError(AgentwatchError):
    http_status = 401


class Overloaded(AgentwatchError):
    http_status = 429

    def __init__(self, message: str, retry_after_s: int = 1) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class StoreError(AgentwatchError):
    """ClickHouse rejected a statement for a reason retrying will not fix."""


class StoreUnavailable(StoreError):
    """ClickHouse cannot be reached right now; retrying later may work."""


class StoreLocked(StoreError):
    """The embedded engine's data path is held by another process."""


class UsageError(AgentwatchError):
    """Bad configuration or command-line use; the message says what to change."""


class ModelError(AgentwatchError):
    """An LLM provider call failed; subclasses say whether retrying could help.

        ModelError
        ├── ModelAuthError ....... 401/403: the key is wrong (not retried)
        ├── ModelBadRequest ...... 400/404/422: the request is wrong (not retried)
        ├── ModelRateLimited ..... 429 after every retry
        ├── ModelUnavailable ..... 5xx or network failure after every retry
        ├── ModelTimeout ......... no answer in time after every retry
        └── ModelResponseError ... the answer is not a valid Chat Completions response
    """

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class ModelAuthError(ModelError):
    pass


class ModelBadRequest(ModelError):
    pass


class ModelRateLimited(ModelError):
    pass


class ModelUnavailable(ModelError):
    pass


class ModelTimeout(ModelError):
    pass


class ModelResponseError(ModelError):
    pass


class ToolError(AgentwatchError):
    """A tool refused or failed; the message is written for the model to read."""
