"""Typed FastAPI dependencies over the service's parts (held on app.state by the app factory)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request

from collector import Ingestor, Metrics
from schemas.errors import AuthError
from store import Store
from tenancy import KeyRing


def get_store(request: Request) -> Store:
    return request.app.state.store  # type: ignore[no-any-return]


def get_ingestor(request: Request) -> Ingestor:
    return request.app.state.ingestor  # type: ignore[no-any-return]


def get_metrics(request: Request) -> Metrics:
    return request.app.state.metrics  # type: ignore[no-any-return]


def get_keyring(request: Request) -> KeyRing:
    return request.app.state.keyring  # type: ignore[no-any-return]


def get_tenant(request: Request, keyring: Annotated[KeyRing, Depends(get_keyring)]) -> str:
    """The caller's tenant from its bearer key; 401 when a key is required and missing."""
    try:
        return keyring.tenant_for(request.headers.get("authorization"))
    except AuthError as exc:
        raise HTTPException(401, str(exc), headers={"WWW-Authenticate": "Bearer"}) from None


StoreDep = Annotated[Store, Depends(get_store)]
TenantDep = Annotated[str, Depends(get_tenant)]
MetricsDep = Annotated[Metrics, Depends(get_metrics)]
