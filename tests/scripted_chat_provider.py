"""A scripted OpenAI-compatible Chat Completions server, over real HTTP, for the assistant's tests.

It speaks the wire format (`POST /v1/chat/completions` with `tools`; answers as SSE chunks
`data: {"object": "chat.completion.chunk", ...}` ending with `data: [DONE]`, text in
`delta.content`, tool calls in `delta.tool_calls` split over several chunks, usage in a last
chunk), replays the turns a test scripted, one per request, and records every request it got
(headers and JSON body) so a test can search what reached the provider.

A turn is a dict: `{"text": "..."}`, `{"tool_calls": [{"name": ..., "arguments": <str or dict>}]}`,
`{"status": 401, "error": "..."}` (an error answer), `{"delay": seconds, ...}` (waits first),
`{"raw": "..."}` (a stream body as given, for malformed answers).
"""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.conftest import free_port


class ScriptedChatProvider:
    def __init__(self, turns: list[dict[str, Any]] | None = None):
        self.turns: list[dict[str, Any]] = list(turns or [])
        self.received: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.port = free_port()
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "ScriptedChatProvider":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def script(self, *turns: dict[str, Any]) -> None:
        with self._lock:
            self.turns.extend(turns)

    def everything_received(self) -> str:
        """All requests as one text (bodies and headers), for searching what the provider was sent."""
        return json.dumps(self.received, ensure_ascii=False)

    def _next_turn(self) -> dict[str, Any]:
        with self._lock:
            return self.turns.pop(0) if self.turns else {"text": "(no scripted turn left)"}

    def _handler(self):
        provider = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with provider._lock:
                    provider.received.append({"path": self.path, "body": body, "headers": {
                        name.lower(): value for name, value in self.headers.items()}})
                if self.path.rstrip("/") != "/v1/chat/completions":
                    return self._json(404, {"error": {"message": "not found", "type": "invalid_request_error"}})
                turn = provider._next_turn()
                if turn.get("delay"):
                    time.sleep(turn["delay"])
                if "status" in turn:
                    return self._json(turn["status"], {"error": {"message": turn.get("error", "refused"),
                                                                 "type": "invalid_request_error", "code": None}})
                if not body.get("stream"):
                    return self._json(200, self._completion(body, turn))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                if "raw" in turn:
                    self.wfile.write(turn["raw"].encode())
                else:
                    for chunk in self._chunks(body, turn):
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                    self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

            def _json(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            @staticmethod
            def _base(body: dict[str, Any]) -> dict[str, Any]:
                return {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": int(time.time()),
                        "model": body.get("model", "scripted")}

            def _chunks(self, body: dict[str, Any], turn: dict[str, Any]):
                base = self._base(body)
                yield {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                            "finish_reason": None}]}
                text = turn.get("text", "")
                for start in range(0, len(text), 7):  # several deltas, as a model streams
                    yield {**base, "choices": [{"index": 0, "delta": {"content": text[start:start + 7]},
                                                "finish_reason": None}]}
                for index, call in enumerate(turn.get("tool_calls", [])):
                    arguments = call["arguments"] if isinstance(call["arguments"], str) else json.dumps(call["arguments"])
                    half = len(arguments) // 2
                    yield {**base, "choices": [{"index": 0, "delta": {"tool_calls": [{
                        "index": index, "id": f"call_{index}_{int(time.time() * 1000)}", "type": "function",
                        "function": {"name": call["name"], "arguments": arguments[:half]}}]}, "finish_reason": None}]}
                    yield {**base, "choices": [{"index": 0, "delta": {"tool_calls": [{
                        "index": index, "function": {"arguments": arguments[half:]}}]}, "finish_reason": None}]}
                finish = "tool_calls" if turn.get("tool_calls") else "stop"
                yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
                if (body.get("stream_options") or {}).get("include_usage"):
                    tokens = turn.get("tokens", 10)
                    yield {**base, "choices": [], "usage": {"prompt_tokens": tokens - 1, "completion_tokens": 1,
                                                            "total_tokens": tokens}}

            def _completion(self, body: dict[str, Any], turn: dict[str, Any]) -> dict[str, Any]:
                message: dict[str, Any] = {"role": "assistant", "content": turn.get("text") or None}
                if turn.get("tool_calls"):
                    message["tool_calls"] = [{"id": f"call_{i}", "type": "function", "function": {
                        "name": c["name"], "arguments": c["arguments"] if isinstance(c["arguments"], str)
                        else json.dumps(c["arguments"])}} for i, c in enumerate(turn["tool_calls"])]
                tokens = turn.get("tokens", 10)
                return {**self._base(body), "object": "chat.completion", "choices": [{
                    "index": 0, "message": message, "finish_reason": "tool_calls" if turn.get("tool_calls") else "stop"}],
                    "usage": {"prompt_tokens": tokens - 1, "completion_tokens": 1, "total_tokens": tokens}}

        return Handler
