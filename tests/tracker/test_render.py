"""Rendering of /a.js: endpoint substitution, minification, cached encodings and the size budget."""
from __future__ import annotations

import gzip
import re

import pytest

from collector_app.app import create_app
from collector_app.tracker import render_tracker, tracker_asset
from collector_app.tracker.render import PLACEHOLDER
from pipelines.settings import Settings
from tests.conftest import REPO_ROOT

SIZE_BUDGET_GZIP = 2600  # bytes: below Plausible's full-featured script (2,601)


def test_endpoint_path_is_substituted_as_a_string_literal():
    script = render_tracker("/e/v1").decode()
    assert 'new URL("/e/v1",' in script
    assert PLACEHOLDER.strip('"') not in script
    assert "/collect" not in script


def test_default_endpoint_is_collect():
    assert 'new URL("/collect",' in render_tracker().decode()


@pytest.mark.parametrize("path", ["collect", "/collect?x=1", "/col\"lect", "/a b", "/x#y", "", "//evil.example/x",
                                  "/collect\\", "/é"])
def test_unsafe_endpoint_paths_are_refused(path):
    with pytest.raises(ValueError):
        render_tracker(path)


def test_minified_without_comments_and_deterministic():
    script = render_tracker()
    assert script == render_tracker()
    text = script.decode()
    assert text.startswith("(()=>{") and text.endswith("})();\n")
    assert "audience tracker" not in text and "Names:" not in text  # comments are gone
    assert len(text.splitlines()) < 20


def test_names_are_mangled_by_a_real_minifier():
    """terser renames local names: the readable source's names (cfg, ready, cookieOn...) are gone."""
    text = render_tracker().decode()
    for name in ("cfg", "ready", "cookieOn", "sentS", "shown", "started"):
        assert not re.search(rf"\b{name}\b", text), name


def test_a_missing_build_is_refused_clearly(tmp_path, monkeypatch):
    from collector_app.tracker import render

    monkeypatch.setattr(render, "MINIFIED_PATH", tmp_path / "a.min.js")
    render._minified.cache_clear()
    try:
        with pytest.raises(render.TrackerNotBuilt, match="make tracker"):
            render.render_tracker("/collect")
    finally:
        render._minified.cache_clear()


def test_asset_encodings_and_strong_etag():
    body, gzip_body, etag = asset = tracker_asset("/collect")
    assert body == render_tracker("/collect")
    assert gzip.decompress(gzip_body) == body
    assert re.fullmatch(r'"[0-9a-f]{32}"', etag)  # strong: no W/ prefix
    assert asset.gzip_etag != etag and re.fullmatch(r'"[0-9a-f]{32}-gz"', asset.gzip_etag)
    assert tracker_asset("/collect") is asset  # cached per endpoint path
    other = tracker_asset("/ingest/v1")
    assert other.etag != etag and other.body != body
    assert gzip_body[4:8] == b"\0\0\0\0" and tracker_asset.__wrapped__("/collect").gzip_body == gzip_body  # no timestamp


def _served_script(tmp_path, encoding: str | None) -> bytes:
    """GET /a.js of a collector in the default configuration, as a site's visitors receive it (the
    settings' defaults; serving the script reads no database)."""
    app = create_app(Settings(home=tmp_path / "home", database_url="postgresql:///never-connected",
                              server_secret_value="size-test"))
    response = app.test_client().get("/a.js", headers={"Accept-Encoding": encoding} if encoding else {})
    assert response.status_code == 200 and response.headers.get("Content-Encoding") == encoding
    return response.data


def test_size_budget_gzipped_as_served(tmp_path, capsys):
    """The budget is measured on the answer itself: the endpoint is not embedded as an address, the
    script derives it from its own src (document.currentScript), so every site gets these bytes."""
    served, plain = _served_script(tmp_path, "gzip"), _served_script(tmp_path, None)
    with capsys.disabled():
        print(f"\nGET /a.js: {len(plain)} bytes minified, {len(served)} bytes gzipped (budget {SIZE_BUDGET_GZIP})")
    assert gzip.decompress(served) == plain
    assert len(served) <= SIZE_BUDGET_GZIP
    assert b"://" not in plain and b"currentScript" in plain  # no address embedded: the same for every host


def test_readmes_state_the_current_size():
    """The size stated in the tracker's README and in the guide's Collection page is the size served."""
    stated = f"{len(tracker_asset().body):,} bytes minified, {len(tracker_asset().gzip_body):,} bytes gzipped"
    for readme in (REPO_ROOT / "collector_app/tracker/README.md", REPO_ROOT / "docs/site-owner/collection.md"):
        assert stated in readme.read_text(encoding="utf-8"), f"{readme.name} must state: {stated}"
