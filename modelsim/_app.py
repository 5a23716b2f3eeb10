"""An OpenAI-compatible Chat Completions server on loopback, for demos and tests.

No real LLM is reachable from where agentwatch is built and tested, so this
server stands in for the provider. It speaks the real protocol (JSON and SSE
streaming, tool calls, usage, error bodies, Retry-After) and plays a `Script`
(see _script.py). Without a matching scenario and without a fallback turn it
calls the first offered tool once, then answers by echoing the last message.
Tests must check the agent's behaviour and spans, never this server.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from ._script import ErrorRule, Script, Turn, choose_turn, fill


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def _default_turn(body: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    messages = body.get("messages") or []
    tools = body.get("tools") or []
    if tools and not any(m.get("role") == "tool" for m in messages):
        fn = tools[0]["function"]
        last_user: dict[str, Any] = next(
            (m for m in reversed(messages) if m.get("role") == "user"), {})
        args = {"query": str(last_user.get("content", ""))[:200]}
        return "", [{"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
                     "function": {"name": fn["name"], "arguments": json.dumps(args)}}]
    last = messages[-1] if messages else {}
    return f"Answer to: {str(last.get('content', ''))[:200]}", []


def _play(turn: Turn, values: dict[str, str]) -> tuple[str, list[dict[str, Any]]]:
    text = fill(turn.refusal or turn.text or "", values)
    calls = [{"id": f"call_{uuid.uuid4().hex[:12]}", "type": "function",
              "function": {"name": call.name, "arguments": json.dumps(fill(call.arguments, values))}}
             for call in turn.tool_calls]
    return text, calls


def _error_response(rule: ErrorRule) -> Response:
    if rule.kind == "malformed":
        return Response(b'{"id": "chatcmpl-x", "choices": [ {"message": ', media_type="application/json")
    status = int(rule.kind)
    headers = {"retry-after": f"{rule.retry_after_s:g}"} if rule.retry_after_s is not None and status in (
        429, 503) else {}
    kinds = {401: "invalid_api_key", 429: "rate_limit_exceeded", 500: "server_error",
             503: "overloaded"}
    return JSONResponse({"error": {"message": f"simulated {status}", "type": kinds.get(status, "error"),
                                   "code": kinds.get(status)}}, status_code=status, headers=headers)


def create_app(script: Script | None = None) -> FastAPI:
    script = script or Script()
    app = FastAPI(title="agentwatch model simulator")
    attempts: dict[str, int] = defaultdict(int)
    rng = random.Random(script.seed)
    app.state.requests = 0

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        names = sorted(set(script.models) | {"sim-model"})
        return {"object": "list", "data": [{"id": n, "object": "model", "owned_by": "agentwatch"}
                                           for n in names]}

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> Any:
        app.state.requests += 1
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return JSONResponse({"error": {"message": "body is not JSON"}}, status_code=400)
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body["messages"]:
            return JSONResponse({"error": {"message": "messages is required"}}, status_code=400)
        model = str(body.get("model", "sim-model"))
        scenario, turn, values = choose_turn(script, body["messages"])
        key = hashlib.blake2b(json.dumps(body["messages"], sort_keys=True).encode(),
                              digest_size=12).hexdigest()
        attempts[key] += 1
        for rule in [*script.errors, *(scenario.errors if scenario else [])]:
            if attempts[key] in rule.attempts or (rule.probability and rng.random() < rule.probability):
                if rule.kind == "timeout":
                    await asyncio.sleep(rule.timeout_s)
                    continue
                return _error_response(rule)
        latency = script.latency_for(model)
        if latency.mean_ms or latency.jitter_ms:
            await asyncio.sleep(max(0.0, latency.mean_ms + rng.uniform(-latency.jitter_ms,
                                                                       latency.jitter_ms)) / 1000)
        text, calls = _play(turn, values) if turn else _default_turn(body)
        prompt_tokens = (turn.prompt_tokens if turn and turn.prompt_tokens else
                         sum(_tokens(json.dumps(m)) for m in body["messages"]))
        completion_tokens = (turn.completion_tokens if turn and turn.completion_tokens else
                             _tokens(text + json.dumps(calls)))
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                 "total_tokens": prompt_tokens + completion_tokens}
        finish = "tool_calls" if calls else "stop"
        completion_id = f"chatcmpl-{uuid.uuid4().hex[:16]}"
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return StreamingResponse(
                _stream(completion_id, model, text, calls, finish, usage if include_usage else None),
                media_type="text/event-stream")
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            message["tool_calls"] = calls
        return JSONResponse({
            "id": completion_id, "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": usage,
        })

    return app


def _stream(completion_id: str, model: str, text: str, calls: list[dict[str, Any]],
            finish: str, usage: dict[str, int] | None) -> Iterator[str]:
    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        return "data: " + json.dumps({
            "id": completion_id, "object": "chat.completion.chunk", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }) + "\n\n"

    yield chunk({"role": "assistant", "content": ""})
    for start in range(0, len(text), 16):
        yield chunk({"content": text[start:start + 16]})
    for index, call in enumerate(calls):
        yield chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                     "function": {"name": call["function"]["name"],
                                                  "arguments": call["function"]["arguments"]}}]})
    yield chunk({}, finish)
    if usage is not None:
        yield "data: " + json.dumps({"id": completion_id, "object": "chat.completion.chunk",
                                     "created": int(time.time()), "model": model, "choices": [],
                                     "usage": usage}) + "\n\n"
    yield "data: [DONE]\n\n"
