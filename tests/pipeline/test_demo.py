"""Demo data: metadata through the administration code, older days imported, recent days sent
to the real POST /collect/server endpoint."""
from collector_app.app import create_app
from pipelines.demo import create_demo, demo_exists
from pipelines.demo.send import MAX_PER_REQUEST
from pipelines.ingest.writer import stop_writer


def test_demo_site_and_traffic(settings, db):
    app = create_app(settings)
    client = app.test_client()
    responses = []

    def send_recent(site_id, secret, events):
        accepted = 0
        for start in range(0, len(events), MAX_PER_REQUEST):
            response = client.post("/collect/server", json={"events": events[start:start + MAX_PER_REQUEST]},
                                   headers={"Authorization": f"Bearer {secret}"})
            responses.append(response.status_code)
            accepted += response.get_json()["accepted"]
        return accepted

    try:
        summary = create_demo(settings.database_url, send_recent, days=5)
    finally:
        stop_writer(settings)
    assert set(responses) == {202}
    assert summary.imported_events > 500 and summary.sent_events > 200
    assert demo_exists(db)
    by_source = dict(db.execute("select source, count(*) from raw.events group by 1").fetchall())
    assert by_source == {"import": summary.imported_events, "server": summary.sent_events}
    names = {name for (name,) in db.execute("select distinct event_name from raw.events")}
    assert {"pageview", "view_item", "add_to_cart", "purchase", "scroll_depth", "zone_visibility"} <= names
    metadata = db.execute("""select (select count(*) from collect.declared_events), (select count(*) from collect.zones),
                                    (select count(*) from collect.goals), (select count(*) from collect.classifications),
                                    (select count(*) from collect.annotations)""").fetchone()
    assert all(count > 0 for count in metadata)
    # No address reached the table: the IP gave a country and was dropped.
    assert db.execute("select count(*) from raw.events e where e::text like '%90.84.1.1%'").fetchone()[0] == 0
    assert db.execute("select count(distinct country) from raw.events").fetchone()[0] > 3
