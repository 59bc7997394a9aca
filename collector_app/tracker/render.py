"""Render the tracking script: substitute the endpoint path in the minified build.

`make tracker` (run by `make run` and `make test`) minifies `a.js` with terser into `dist/a.min.js`
(names mangled; git-ignored). Without that build the collector refuses to serve a script rather
than fall back silently to something else. `render_tracker` is pure (same path in, same bytes
out). `tracker_asset` caches, per endpoint path, what the `/a.js` route needs to answer with a
strong ETag and gzip (zopfli: a standard gzip stream, smaller) without any work per request.
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path
from typing import NamedTuple

import zopfli.gzip

SOURCE_PATH = Path(__file__).with_name("a.js")
MINIFIED_PATH = Path(__file__).parent / "dist" / "a.min.js"
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


class TrackerNotBuilt(RuntimeError):
    """The minified script is missing or older than its source: `make tracker` builds it."""


@functools.cache
def _minified() -> str:
    if not MINIFIED_PATH.exists() or MINIFIED_PATH.stat().st_mtime < SOURCE_PATH.stat().st_mtime:
        raise TrackerNotBuilt(f"{MINIFIED_PATH} is missing or older than {SOURCE_PATH.name}: run `make tracker` "
                              "(make run and make test do)")
    return MINIFIED_PATH.read_text(encoding="utf-8")


def render_tracker(endpoint_path: str = "/collect") -> bytes:
    """Return the minified script that posts to `endpoint_path` on the script's own origin."""
    if not isinstance(endpoint_path, str) or not ENDPOINT_PATH.fullmatch(endpoint_path):
        raise ValueError(f"endpoint path must look like /collect, got {endpoint_path!r}")
    minified = _minified()
    if minified.count(PLACEHOLDER) != 1:
        raise TrackerNotBuilt(f"{MINIFIED_PATH} must contain {PLACEHOLDER} exactly once")
    return minified.replace(PLACEHOLDER, json.dumps(endpoint_path)).strip().encode("utf-8") + b"\n"


@functools.lru_cache(maxsize=16)
def tracker_asset(endpoint_path: str = "/collect") -> TrackerAsset:
    """The rendered script, its gzip encoding (deterministic: no timestamp) and a strong ETag."""
    body = render_tracker(endpoint_path)
    gzip_body = zopfli.gzip.compress(body)
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    return TrackerAsset(body, gzip_body, etag)
