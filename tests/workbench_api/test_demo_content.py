"""The Demo folder: created once, editable and deletable, never created again over people's changes."""
from __future__ import annotations

from workbench_app.home.demo_content import DASHBOARD_NAME, FOLDER_NAME, QUESTIONS, seed_demo_content
from tests.workbench_api.conftest import ok


def demo_folder(admin) -> dict | None:
    return next((f for f in ok(admin.get("/folders"))["folders"] if f["name"] == FOLDER_NAME), None)


def test_the_demo_folder_holds_the_questions_and_a_dashboard_over_them(admin, workbench_db):
    assert seed_demo_content(workbench_db) is True
    folder = demo_folder(admin)
    assert folder is not None and not folder["personal"] and folder["access"] == "edit"
    saved = ok(admin.get(f"/questions?folder_id={folder['folder_id']}"))["questions"]
    assert sorted(q["name"] for q in saved) == sorted(q["name"] for q in QUESTIONS)
    by_name = {q["name"]: ok(admin.get(f"/questions/{q['question_id']}")) for q in saved}
    assert by_name["Visits by channel"]["visualization"] == {"kind": "bar", "x": "channel", "y": ["visits"]}
    dashboard = next(d for d in ok(admin.get("/dashboards"))["dashboards"] if d["name"] == DASHBOARD_NAME)
    cards = ok(admin.get(f"/dashboards/{dashboard['dashboard_id']}"))["cards"]
    assert sorted(c["question_id"] for c in cards) == sorted(q["question_id"] for q in saved)
    # Pinned for everyone: the first thing on the home page.
    assert [(p["kind"], p["id"]) for p in ok(admin.get("/home"))["pinned"]] == [("dashboard", dashboard["dashboard_id"])]


def test_people_s_changes_are_never_overwritten(admin, workbench_db):
    seed_demo_content(workbench_db)
    folder = demo_folder(admin)
    questions = ok(admin.get(f"/questions?folder_id={folder['folder_id']}"))["questions"]
    renamed, deleted = questions[0], questions[1]
    ok(admin.patch(f"/questions/{renamed['question_id']}", {"name": "My visits"}))
    assert admin.delete(f"/questions/{deleted['question_id']}").status_code == 204

    assert seed_demo_content(workbench_db) is False
    names = [q["name"] for q in ok(admin.get(f"/questions?folder_id={folder['folder_id']}"))["questions"]]
    assert "My visits" in names and renamed["name"] not in names and deleted["name"] not in names

    assert admin.delete(f"/folders/{folder['folder_id']}").status_code == 204
    assert seed_demo_content(workbench_db) is False
    assert demo_folder(admin) is None
    assert [d for d in ok(admin.get("/dashboards"))["dashboards"] if d["name"] == DASHBOARD_NAME] == []
