"""The agent's built-in tools and the toolbox that builds them from configuration."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from schemas.errors import UsageError

from ._base import Effect, Tool
from ._business import CreateTicket, SendEmail
from ._calculator import Calculator
from ._files import FileOps
from ._python_exec import PythonExec, SandboxLimits
from ._web import FetchPolicy, LocalIndex, SearchProvider, SearchResult, WebFetch, WebSearch


@dataclass
class ToolConfig:
    """Where tools may act: the workspace, the fetch policy, the search provider."""

    workspace: Path
    fetch: FetchPolicy = field(default_factory=FetchPolicy)
    search: SearchProvider | None = None
    sandbox: SandboxLimits = field(default_factory=SandboxLimits)


BUILTIN = ("calculator", "python_exec", "file_ops", "web_fetch", "web_search", "send_email",
           "create_ticket")


def build_tools(names: list[str], config: ToolConfig) -> dict[str, Tool]:
    factories = {
        "calculator": lambda: Calculator(),
        "python_exec": lambda: PythonExec(config.sandbox),
        "file_ops": lambda: FileOps(config.workspace),
        "web_fetch": lambda: WebFetch(config.fetch),
        "web_search": lambda: WebSearch(config.search),
        "send_email": lambda: SendEmail(config.workspace),
        "create_ticket": lambda: CreateTicket(config.workspace),
    }
    unknown = [n for n in names if n not in factories]
    if unknown:
        raise UsageError(f"unknown tool(s) {', '.join(unknown)}; built-in tools: {', '.join(BUILTIN)}")
    return {name: factories[name]() for name in names}


__all__ = [
    "BUILTIN",
    "Calculator",
    "CreateTicket",
    "Effect",
    "FetchPolicy",
    "FileOps",
    "LocalIndex",
    "PythonExec",
    "SandboxLimits",
    "SearchProvider",
    "SearchResult",
    "SendEmail",
    "Tool",
    "ToolConfig",
    "WebFetch",
    "WebSearch",
    "build_tools",
]
