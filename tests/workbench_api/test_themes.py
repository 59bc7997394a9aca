"""Themes: administrators keep them, folders and dashboards name them, and one server function
resolves which applies along the folder chain; logos are checked images, never SVG."""
from __future__ import annotations

import struct
import zlib

from tests.workbench_api.conftest import create_user_with_token, ok
from workbench_app.themes.resolution import effective_theme


def png(width: int = 2, height: int = 2) -> bytes:
    """A real (tiny) PNG image."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _theme(admin, name, **settings):
    return ok(admin.post("/themes", {"name": name, "settings": settings}), 201)


def test_an_administrator_creates_changes_and_deletes_a_theme(admin):
    theme = _theme(admin, "Brand", font="inter", colors={"primary": "#AA0000"}, pdf={"orientation": "landscape"})
    assert theme["settings"] == {"font": "inter", "colors": {"primary": "#aa0000"}, "pdf": {"orientation": "landscape"}}
    # The whole theme: what it sets over the defaults.
    assert theme["resolved"]["colors"]["primary"] == "#aa0000"
    assert theme["resolved"]["colors"]["surface"] == "#ffffff"
    assert theme["resolved"]["pdf"]["margins_mm"]["top"] == 18
    changed = ok(admin.put(f"/themes/{theme['theme_id']}", {"name": "Brand 2", "settings": {"palette": ["#112233"]}}))
    assert changed["name"] == "Brand 2" and changed["settings"] == {"palette": ["#112233"]}
    assert [t["name"] for t in ok(admin.get("/themes"))["themes"]] == ["Brand 2"]
    assert admin.delete(f"/themes/{theme['theme_id']}").status_code == 204
    assert admin.get(f"/themes/{theme['theme_id']}").status_code == 404


def test_bad_settings_are_refused_with_the_field_named_and_nothing_is_kept(admin):
    for settings, field in [({"font": "comic-sans"}, "settings.font"),
                            ({"colors": {"primary": "red"}}, "settings.colors.primary"),
                            ({"colors": {"primary": "#fff; background:url(x)"}}, "settings.colors.primary"),
                            ({"card": {"radius": 99}}, "settings.card.radius"),
                            ({"palette": []}, "settings.palette"),
                            ({"pdf": {"margins_mm": {"top": 1}}}, "settings.pdf.margins_mm.top"),
                            ({"pdf": {"header": "two\nlines"}}, "settings.pdf.header"),
                            ({"pdf": {"orientation": "sideways"}}, "settings.pdf.orientation"),
                            ({"logo_url": "http://example.org/x.png"}, "settings")]:
        answer = admin.post("/themes", {"name": "Bad", "settings": settings})
        assert answer.status_code == 400, settings
        assert answer.get_json()["error"]["details"]["field"] == field
    assert admin.post("/themes", {"name": " "}).status_code == 400
    assert admin.post("/themes", {"name": "x" * 101}).status_code == 400
    assert ok(admin.get("/themes"))["themes"] == []


def test_only_administrators_change_themes_and_everyone_reads_them(admin):
    theme = _theme(admin, "Brand")
    _, token = create_user_with_token(admin, "member@example.org")
    assert [t["theme_id"] for t in ok(admin.get("/themes", token=token))["themes"]] == [theme["theme_id"]]
    for answer in (admin.post("/themes", {"name": "Mine"}, token=token),
                   admin.put(f"/themes/{theme['theme_id']}", {"name": "Mine"}, token=token),
                   admin.delete(f"/themes/{theme['theme_id']}", token=token),
                   admin.call("PUT", f"/themes/{theme['theme_id']}/logo", token=token, data=png(),
                              content_type="image/png")):
        assert answer.status_code == 403
        assert answer.get_json()["error"]["code"] == "forbidden"


def test_a_logo_is_a_checked_image_and_svg_is_refused(admin):
    theme = _theme(admin, "Brand")
    path = f"/themes/{theme['theme_id']}/logo"
    uploaded = ok(admin.call("PUT", path, data=png(), content_type="image/png"))
    assert uploaded["has_logo"] is True
    served = admin.get(path)
    assert served.status_code == 200 and served.mimetype == "image/png" and served.data == png()
    assert "sandbox" in served.headers["Content-Security-Policy"]
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    for data, kind in [(svg, "image/svg+xml"), (svg, "image/png"), (b"GIF89a....", "image/gif"),
                       (b"not an image at all", "image/jpeg"), (png(), "text/html")]:
        answer = admin.call("PUT", path, data=data, content_type=kind)
        assert answer.status_code == 415, kind
        assert answer.get_json()["error"]["code"] == "unsupported_media_type"
    too_big = admin.call("PUT", path, data=png() + b"\0" * (256 * 1024), content_type="image/png")
    assert too_big.status_code == 413
    # The refused uploads left the first logo in place.
    assert admin.get(path).data == png()
    assert ok(admin.delete(path))["has_logo"] is False
    assert admin.get(path).status_code == 404


def test_the_effective_theme_follows_the_folder_chain(admin, workbench_db):
    brand, sub_brand, own = _theme(admin, "Brand"), _theme(admin, "Sub brand"), _theme(admin, "Own")
    top = ok(admin.post("/folders", {"name": "Marketing"}), 201)
    middle = ok(admin.post("/folders", {"name": "Campaigns", "parent_id": top["folder_id"]}), 201)
    bottom = ok(admin.post("/folders", {"name": "2026", "parent_id": middle["folder_id"]}), 201)
    dashboard = ok(admin.post("/dashboards", {"name": "Spring", "folder_id": bottom["folder_id"]}), 201)
    question = ok(admin.post("/questions", {"name": "Q", "sql": "SELECT 1 AS one", "folder_id": bottom["folder_id"]}), 201)
    dashboard_path = f"/dashboards/{dashboard['dashboard_id']}/theme"

    def source(conn_kind=None):
        return ok(admin.get(dashboard_path))["source"]

    assert source() == {"kind": "default", "id": None}
    ok(admin.put(f"/folders/{top['folder_id']}/theme", {"theme_id": brand["theme_id"]}))
    # Two folders down, the dashboard and the question wear the top folder's theme.
    assert ok(admin.get(dashboard_path))["theme_id"] == brand["theme_id"]
    assert source() == {"kind": "folder", "id": top["folder_id"]}
    assert ok(admin.get(f"/questions/{question['question_id']}/theme"))["theme_id"] == brand["theme_id"]
    # A subfolder's own theme wins over its parent's, for everything below it.
    ok(admin.put(f"/folders/{middle['folder_id']}/theme", {"theme_id": sub_brand["theme_id"]}))
    assert ok(admin.get(dashboard_path))["theme_id"] == sub_brand["theme_id"]
    assert ok(admin.get(f"/folders/{top['folder_id']}/theme"))["theme_id"] == brand["theme_id"]
    # The dashboard's own wins over any folder's; null gives it back to its folders.
    ok(admin.put(dashboard_path, {"theme_id": own["theme_id"]}))
    assert source() == {"kind": "dashboard", "id": dashboard["dashboard_id"]}
    ok(admin.put(dashboard_path, {"theme_id": None}))
    assert ok(admin.get(dashboard_path))["theme_id"] == sub_brand["theme_id"]
    # Deleting a theme: its folder inherits again.
    admin.delete(f"/themes/{sub_brand['theme_id']}")
    assert ok(admin.get(dashboard_path))["theme_id"] == brand["theme_id"]
    # The one function behind all of it, called directly.
    resolved = effective_theme(workbench_db, folder_id=bottom["folder_id"])
    assert resolved["theme_id"] == brand["theme_id"] and resolved["settings"]["font"] == "system"


def test_assigning_a_theme_needs_the_edit_right_and_reading_it_the_view_right(admin, eu_analysts):
    theme = _theme(admin, "Brand")
    shared = ok(admin.post("/folders", {"name": "Shared"}), 201)
    ok(admin.put(f"/folders/{shared['folder_id']}/access/{eu_analysts}", {"level": "view"}))
    dashboard = ok(admin.post("/dashboards", {"name": "Team", "folder_id": shared["folder_id"]}), 201)
    private = ok(admin.post("/dashboards", {"name": "Admin's own"}), 201)
    _, token = create_user_with_token(admin, "viewer@example.org", groups=(eu_analysts,))
    assert ok(admin.get(f"/dashboards/{dashboard['dashboard_id']}/theme", token=token))["source"]["kind"] == "default"
    assert admin.put(f"/folders/{shared['folder_id']}/theme", {"theme_id": theme["theme_id"]},
                     token=token).status_code == 403
    assert admin.put(f"/dashboards/{dashboard['dashboard_id']}/theme", {"theme_id": theme["theme_id"]},
                     token=token).status_code == 403
    assert admin.get(f"/dashboards/{private['dashboard_id']}/theme", token=token).status_code == 404
    # Bad input: an unknown theme, a missing or wrongly typed theme_id.
    path = f"/folders/{shared['folder_id']}/theme"
    assert admin.put(path, {"theme_id": 999999}).status_code == 404
    assert admin.put(path, {}).status_code == 400
    assert admin.put(path, {"theme_id": "3"}).status_code == 400
    assert admin.put(path, [1]).status_code == 422
