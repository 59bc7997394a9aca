"""Request bodies read as JSON, strictly, the same way on every path of the collector.

msgspec reads a UTF-8 body in compiled code, several times faster than the standard library. What
it does not read (UTF-16 or UTF-32 bodies, a byte order mark, a lone surrogate escape, a number
past a float's range) goes to the standard decoder, which decides as it always has: the answer to
a body does not depend on which of the two read it.
"""
from __future__ import annotations

import json

import msgspec

_fast_decoder = msgspec.json.Decoder()


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


# One decoder for every request: json.loads with an option builds a new one per call.
_strict_decoder = json.JSONDecoder(parse_constant=_reject_constant)


def is_utf8(data: bytes) -> bool:
    """Whether `data` is UTF-8 (msgspec does not check text it skips or keeps undecoded)."""
    if data.isascii():
        return True
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


def parse_json(data: bytes | str):
    """Strict JSON (no NaN or Infinity); ValueError for anything else."""
    if isinstance(data, bytes):
        try:
            return _fast_decoder.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError):
            pass
    try:
        if isinstance(data, bytes):
            # As json.loads reads bytes: UTF-8, -16 or -32 by their first bytes. A body that opens
            # with an ASCII character other than NUL is UTF-8 for detect_encoding: skip the call.
            first = data[:1]
            encoding = "utf-8" if first and b"\x00" < first < b"\x80" and data[1:2] != b"\x00" \
                else json.detect_encoding(data)
            text = data.decode(encoding, "surrogatepass")
        else:
            text = data
        return _strict_decoder.decode(text)
    except RecursionError:  # nesting deeper than the interpreter's stack
        raise ValueError("too deeply nested") from None
