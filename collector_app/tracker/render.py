"""Render the tracking script: substitute the endpoint path, then minify.

`render_tracker` is pure (same path in, same bytes out). `tracker_asset` caches, per endpoint
path, what the `/a.js` route needs to answer with a strong ETag and gzip without any work per
request.
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import json
import re
from pathlib import Path
from typing import NamedTuple

import rjsmin

SOURCE_PATH = Path(__file__).with_name("a.js")
# The placeholder is a complete JS string literal in the source, replaced by another literal.
PLACEHOLDER = '"__AUDIENCE_ENDPOINT__"'
# Path segments of unreserved characters only: nothing that could end the string literal, and no
# query or fragment, since the script appends `?site=` to it.
ENDPOINT_PATH = re.compile(r"(/[A-Za-z0-9._~-]+)+")


class TrackerAsset(NamedTuple):
    """The rendered script in both encodings. Unpacks as `(body, gzip_body, etag)`."""

    body: bytes
    gzip_body: bytes
    etag: str

    @property
    def gzip_etag(self) -> str:
        """Strong ETag of the gzip representation: a content coding is a different representation
        (RFC 9110, 8.8.3), so it gets its own validator."""
        return self.etag[:-1] + '-gz"'


@functools.cache
def _source() -> str:
    return SOURCE_PATH.read_text(encoding="utf-8")


def render_tracker(endpoint_path: str = "/collect") -> bytes:
    """Return the minified script that posts to `endpoint_path` on the script's own origin."""
    if not isinstance(endpoint_path, str) or not ENDPOINT_PATH.fullmatch(endpoint_path):
        raise ValueError(f"endpoint path must look like /collect, got {endpoint_path!r}")
    source = _source()
    if source.count(PLACEHOLDER) != 1:
        raise RuntimeError(f"{SOURCE_PATH} must contain {PLACEHOLDER} exactly once")
    script = source.replace(PLACEHOLDER, json.dumps(endpoint_path))
    return rjsmin.jsmin(script).strip().encode("utf-8") + b"\n"


@functools.lru_cache(maxsize=16)
def tracker_asset(endpoint_path: str = "/collect") -> TrackerAsset:
    """The rendered script, its gzip encoding (deterministic: no timestamp) and a strong ETag."""
    body = render_tracker(endpoint_path)
    gzip_body = gzip.compress(body, compresslevel=9, mtime=0)
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    return TrackerAsset(body, gzip_body, etag)
