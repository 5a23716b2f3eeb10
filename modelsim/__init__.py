"""A stand-in LLM provider speaking the OpenAI Chat Completions protocol."""

from ._app import create_app

__all__ = ["create_app"]
