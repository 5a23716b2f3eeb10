"""The web pages: static HTML, CSS and JavaScript over the REST API (no build step)."""

from ._routes import router

__all__ = ["router"]
