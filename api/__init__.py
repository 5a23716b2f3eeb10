"""The REST API's routers and their typed dependencies."""

from . import eval, health, scores, traces
from ._deps import get_ingestor, get_keyring, get_metrics, get_store, get_tenant

__all__ = ["eval", "get_ingestor", "get_keyring", "get_metrics", "get_store", "get_tenant", "health",
           "scores", "traces"]
