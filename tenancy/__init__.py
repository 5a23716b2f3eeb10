"""Tenants and the API keys that map callers to them."""

from ._keys import DEFAULT_TENANT, ApiKey, KeyRing, KeysFile

__all__ = ["DEFAULT_TENANT", "ApiKey", "KeyRing", "KeysFile"]
