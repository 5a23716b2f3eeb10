"""agentwatch's composition root: settings, the app factory and the CLI."""

from .app import create_app
from .settings import Settings, load_settings

__all__ = ["Settings", "create_app", "load_settings"]
