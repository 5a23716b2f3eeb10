"""web_fetch and web_search.

web_fetch refuses private, loopback, link-local and other non-public addresses
unless configuration allows them (the tests and the simulator allow loopback),
re-checks every redirect hop, and caps time, size and redirects. Known limit:
the address is checked at resolution time; a DNS answer that changes between
the check and the connection (rebinding) is not caught.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import math
import re
import socket
from collections import Counter
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Protocol
from urllib.parse import urljoin, urlsplit

import httpx
from pydantic import BaseModel, Field

from schemas.errors import ToolError

from ._base import Tool


@dataclass(frozen=True)
class FetchPolicy:
    allow_private: bool = False
    timeout_s: float = 10.0
    max_bytes: int = 512 * 1024
    max_redirects: int = 5


class _FetchArgs(BaseModel):
    url: str = Field(..., max_length=2000, description="an http(s) URL")


class WebFetch(Tool):
    name = "web_fetch"
    description = "Fetch a web page or document by URL and return its text."
    effect = "read"
    Args = _FetchArgs

    def __init__(self, policy: FetchPolicy | None = None) -> None:
        self.policy = policy or FetchPolicy()

    async def run(self, args: _FetchArgs) -> str:  # type: ignore[override]
        url = args.url.strip()
        policy = self.policy
        async with httpx.AsyncClient(timeout=policy.timeout_s, follow_redirects=False) as http:
            for _ in range(policy.max_redirects + 1):
                await self._check_address(url)
                try:
                    async with http.stream("GET", url, headers={"user-agent": "agentwatch-agent"}) as r:
                        if r.is_redirect:
                            url = urljoin(url, r.headers.get("location", ""))
                            continue
                        if r.status_code >= 400:
                            raise ToolError(f"{url} answered HTTP {r.status_code}")
                        body = await _read_capped(r, policy.max_bytes)
                        return _as_text(r.headers.get("content-type", ""), body, policy.max_bytes)
                except httpx.TimeoutException:
                    raise ToolError(f"{url} did not answer within {policy.timeout_s:g} s") from None
                except httpx.HTTPError as exc:
                    raise ToolError(f"cannot fetch {url}: {exc.__class__.__name__}") from None
        raise ToolError(f"more than {policy.max_redirects} redirects")

    async def _check_address(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ToolError(f"only http(s) URLs can be fetched, not {url!r}")
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(
                parts.hostname, parts.port or (443 if parts.scheme == "https" else 80),
                type=socket.SOCK_STREAM)
        except socket.gaierror:
            raise ToolError(f"cannot resolve {parts.hostname}") from None
        if self.policy.allow_private:
            return
        for info in infos:
            address = ipaddress.ip_address(info[4][0])
            if not address.is_global or address.is_multicast:
                raise ToolError(f"{parts.hostname} resolves to a non-public address ({address}); "
                                "fetching it is not allowed")


async def _read_capped(response: httpx.Response, limit: int) -> bytes:
    chunks, size = [], 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            break
    return b"".join(chunks)


def _as_text(content_type: str, body: bytes, limit: int) -> str:
    kind = content_type.split(";")[0].strip().lower()
    truncated = len(body) > limit
    text = body[:limit].decode("utf-8", "replace")
    if kind in ("text/html", "application/xhtml+xml"):
        text = _html_text(text)
    elif kind == "application/json":
        with contextlib.suppress(json.JSONDecodeError):
            text = json.dumps(json.loads(text), indent=1)[:limit]
    elif not (kind.startswith("text/") or kind in ("application/xml", "") or kind.endswith("+xml")):
        raise ToolError(f"content type {kind} is not text; it cannot be read")
    return text + ("\n…[truncated]" if truncated else "")


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "noscript"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "noscript") and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip and data.strip():
            self.parts.append(data.strip())


def _html_text(html: str) -> str:
    parser = _TextExtractor()
    parser.feed(html)
    return "\n".join(parser.parts)


# -- search -------------------------------------------------------------------

@dataclass(frozen=True)
class SearchResult:
    title: str
    url: str
    snippet: str


class SearchProvider(Protocol):
    async def search(self, query: str, limit: int) -> list[SearchResult]: ...


_WORD = re.compile(r"[a-z0-9]+")


class LocalIndex:
    """BM25 over a local set of documents, so search works with no network."""

    def __init__(self, documents: list[dict[str, str]]) -> None:
        self.documents = documents
        self._terms = [Counter(_WORD.findall(f"{d.get('title', '')} {d.get('text', '')}".lower()))
                       for d in documents]
        self._avg = sum(sum(t.values()) for t in self._terms) / max(1, len(self._terms))
        self._df = Counter(term for terms in self._terms for term in terms)

    @classmethod
    def from_jsonl(cls, path: str | Path) -> LocalIndex:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        return cls([json.loads(line) for line in lines if line.strip()])

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        words = _WORD.findall(query.lower())
        n = len(self.documents)
        scored = []
        for doc, terms in zip(self.documents, self._terms, strict=True):
            length = sum(terms.values()) or 1
            score = 0.0
            for word in words:
                tf = terms.get(word, 0)
                if tf:
                    idf = math.log(1 + (n - self._df[word] + 0.5) / (self._df[word] + 0.5))
                    score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / self._avg))
            if score > 0:
                scored.append((score, doc))
        scored.sort(key=lambda pair: -pair[0])
        return [SearchResult(d.get("title", ""), d.get("url", ""), d.get("text", "")[:500])
                for _, d in scored[:limit]]


class _SearchArgs(BaseModel):
    query: str = Field(..., min_length=1, max_length=500)
    limit: int = Field(5, ge=1, le=20)


class WebSearch(Tool):
    name = "web_search"
    description = "Search the web (or the configured index) and return titles, URLs and snippets."
    effect = "read"
    Args = _SearchArgs

    def __init__(self, provider: SearchProvider | None) -> None:
        self.provider = provider

    async def run(self, args: _SearchArgs) -> str:  # type: ignore[override]
        if self.provider is None:
            raise ToolError("web_search has no search provider configured")
        results = await self.provider.search(args.query, args.limit)
        if not results:
            return "no results"
        return "\n\n".join(f"{r.title}\n{r.url}\n{r.snippet}" for r in results)
