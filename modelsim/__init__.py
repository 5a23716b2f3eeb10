"""A stand-in LLM provider speaking the OpenAI Chat Completions protocol, driven by scenario files."""

from ._app import create_app
from ._script import ErrorRule, InjectionRule, Latency, Scenario, Script, ToolCallSpec, Turn

__all__ = ["ErrorRule", "InjectionRule", "Latency", "Scenario", "Script", "ToolCallSpec", "Turn",
           "create_app"]
