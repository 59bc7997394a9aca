"""A lean load generator for small requests: one thread, N keep-alive connections, raw sockets.

`http.client` in a thread per connection cost the beacon benchmark about 90 to 150 us of CPU per
request, a third of what the collector itself spent, on the same 2 CPUs. Here each request is
prepared once as bytes, connections are driven by one `selectors` loop, and an answer is parsed
only as far as its status line and framing (Content-Length, chunked, or close): every answer is
still read whole and counted by status, and latency runs from the send to the answer's last byte.
Closed loop: each connection sends its next request when the answer to the previous one is in.
"""
from __future__ import annotations

import selectors
import socket
import time
from collections import Counter


def prepare(method: str, path: str, host: str, body: bytes, headers: dict[str, str]) -> bytes:
    """One HTTP/1.1 request as the bytes to send (keep-alive, with Content-Length)."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", f"Content-Length: {len(body)}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class _Connection:
    __slots__ = ("sock", "buffer", "sent_at", "index")

    def __init__(self, port: int, index: int):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.setblocking(False)
        self.buffer = b""
        self.sent_at = 0.0
        self.index = index


def _answer_end(buffer: bytes) -> tuple[int, int, bool] | None:
    """(status, length of the whole answer in `buffer`, keep-alive) once it is complete, else None."""
    head_end = buffer.find(b"\r\n\r\n")
    if head_end < 0:
        return None
    head = buffer[:head_end].decode("latin-1").lower()
    status = int(head[9:12])
    length, chunked, keep_alive = None, False, True
    for line in head.split("\r\n")[1:]:
        name, _, value = line.partition(":")
        value = value.strip()
        if name == "content-length":
            length = int(value)
        elif name == "transfer-encoding" and "chunked" in value:
            chunked = True
        elif name == "connection" and value == "close":
            keep_alive = False
    start = head_end + 4
    if status == 204 or status == 304 or (length is None and not chunked and status < 200):
        return status, start, keep_alive
    if length is not None:
        return (status, start + length, keep_alive) if len(buffer) >= start + length else None
    if chunked:
        position = start
        while True:
            line_end = buffer.find(b"\r\n", position)
            if line_end < 0:
                return None
            size = int(buffer[position:line_end].split(b";")[0], 16)
            position = line_end + 2 + size + 2
            if len(buffer) < position:
                return None
            if size == 0:
                return status, position, keep_alive
    return None  # read until the server closes: handled by the caller at end of stream


def run_closed_loop(port: int, requests: list[bytes], seconds: float, clients: int,
                    ok: int, start_index: int = 0) -> tuple[int, list[float], Counter]:
    """Drive `clients` connections for `seconds`, each sending `requests` in turn (staggered).

    Returns (answers with status `ok`, their latencies in s, failures by status code or
    "connection"). Requests still unanswered at the end are waited for (up to 10 s) and counted.
    """
    selector = selectors.DefaultSelector()
    latencies: list[float] = []
    errors: Counter = Counter()
    done = 0
    n = len(requests)
    step = max(1, n // clients)
    clock = time.perf_counter
    until = clock() + seconds
    in_flight = 0

    def send(conn: _Connection) -> None:
        nonlocal in_flight
        data = requests[conn.index % n]
        conn.index += 1
        conn.sent_at = clock()
        try:
            conn.sock.sendall(data)  # small requests: the socket buffer takes them whole
        except OSError:
            errors["connection"] += 1
            send(reopen(conn))
            return
        in_flight += 1

    def reopen(conn: _Connection) -> _Connection:
        selector.unregister(conn.sock)
        conn.sock.close()
        fresh = _Connection(port, conn.index)
        selector.register(fresh.sock, selectors.EVENT_READ, fresh)
        return fresh

    for i in range(clients):
        conn = _Connection(port, start_index + i * step)
        selector.register(conn.sock, selectors.EVENT_READ, conn)
        send(conn)
    deadline = until + 10.0
    while in_flight and clock() < deadline:
        for key, _ in selector.select(timeout=1.0):
            conn = key.data
            try:
                chunk = conn.sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                chunk = b""
            if not chunk:  # closed by the server: an answer without framing ends here, else a failure
                in_flight -= 1
                found = _answer_end(conn.buffer) if conn.buffer else None
                if conn.buffer and found is None and b"\r\n\r\n" in conn.buffer:
                    status = int(conn.buffer[9:12])
                    if status == ok:
                        done += 1
                        latencies.append(clock() - conn.sent_at)
                    else:
                        errors[status] += 1
                elif found is None:
                    errors["connection"] += 1
                conn.buffer = b""
                conn = reopen(conn)
                if clock() < until:
                    send(conn)
                continue
            buffer = conn.buffer + chunk if conn.buffer else chunk
            found = _answer_end(buffer)
            if found is None:
                conn.buffer = buffer
                continue
            status, end, keep_alive = found
            conn.buffer = buffer[end:]
            in_flight -= 1
            if status == ok:
                done += 1
                latencies.append(clock() - conn.sent_at)
            else:
                errors[status] += 1
            if not keep_alive:
                conn = reopen(conn)
            if clock() < until:
                send(conn)
    errors["connection"] += in_flight  # never answered
    if not errors["connection"]:
        del errors["connection"]
    for key in list(selector.get_map().values()):
        key.fileobj.close()
    selector.close()
    return done, latencies, errors
