"""Every screen answers for an administrator (a quick walk before the detailed tests)."""


def test_every_screen_renders(browser, site):
    for path in ("/admin/sites", "/admin/sites/new", f"/admin/sites/{site['id']}/settings",
                 f"/admin/sites/{site['id']}/metadata", f"/admin/sites/{site['id']}/channels",
                 f"/admin/sites/{site['id']}/figures", f"/admin/sites/{site['id']}/privacy", "/admin/audit"):
        response = browser.get(path)
        assert response.status_code == 200, (path, response.get_data(as_text=True)[:2000])
        assert "Shop" in response.get_data(as_text=True) or path in ("/admin/sites/new",)
