"""Channel rules: seeded with GA4's default channel group, replaced as a whole ordered list with
regexes checked by Python and PostgreSQL, every edit bumping the version."""
from __future__ import annotations

from tests.collector_admin.conftest import assert_error

RULES = [
    {"channel": "Newsletter", "medium_pattern": "^newsletter$", "source_pattern": None},
    {"channel": "Partners", "source_pattern": "(partner|affiliate)\\.example\\.com$"},
    {"channel": "Organic Search", "source_category": "search"},
    {"channel": "Everything else"},
]


def test_new_site_has_ga4_defaults(client, auth, site, db):
    rules = client.get(f"/api/v1/sites/{site['id']}/channel-rules", headers=auth).get_json()
    assert rules["version"] == 1
    channels = [rule["channel"] for rule in rules["rules"]]
    assert channels[0] == "Direct" and channels[-1] == "Unassigned"
    for channel in ("Paid Search", "Paid Social", "Display", "Organic Search", "Organic Social", "Referral",
                    "Email", "Affiliates", "Organic Video", "Paid Shopping", "Cross-network", "SMS", "Audio"):
        assert channel in channels
    assert channels.index("Paid Search") < channels.index("Organic Search")
    paid_search = next(rule for rule in rules["rules"] if rule["channel"] == "Paid Search")
    assert paid_search["source_category"] == "search" and paid_search["medium_pattern"]
    # The categories rules rely on are seeded.
    categories = dict(db.execute("select source, category from collect.source_categories "
                                 "where source in ('google', 'facebook', 'amazon', 'youtube', 'mail.google.com')"))
    assert categories == {"google": "search", "facebook": "social", "amazon": "shopping", "youtube": "video",
                          "mail.google.com": "email"}
    # Seeding happens whichever way a site is created.
    created = db.execute("insert into collect.sites (name) values ('raw') returning site_id").fetchone()[0]
    assert db.execute("select count(*) from collect.channel_rules where site_id = %s", (created,)).fetchone()[0] == len(channels)


def test_defaults_classify_like_ga4(db, site):
    """The default rules, applied the way the pipeline applies them (first match, ~*, '' for missing)."""
    def channel(source, medium, campaign=""):
        return db.execute(
            """select r.channel from collect.channel_rules r
                where r.site_id = %(site)s
                  and (r.source_pattern is null or %(source)s ~* r.source_pattern)
                  and (r.medium_pattern is null or %(medium)s ~* r.medium_pattern)
                  and (r.campaign_pattern is null or %(campaign)s ~* r.campaign_pattern)
                  and (r.source_category is null or r.source_category =
                       (select category from collect.source_categories where source = lower(%(source)s)))
                order by r.position limit 1""",
            {"site": site["id"], "source": source, "medium": medium, "campaign": campaign}).fetchone()[0]
    assert channel("", "") == "Direct"
    assert channel("(direct)", "(none)") == "Direct"
    assert channel("google", "cpc") == "Paid Search"
    assert channel("google", "organic") == "Organic Search"
    assert channel("www.bing.com", "referral") == "Organic Search"
    assert channel("facebook", "paid_social") == "Paid Social"
    assert channel("l.facebook.com", "referral") == "Organic Social"
    assert channel("newsletter", "email") == "Email"
    assert channel("example.org", "referral") == "Referral"
    assert channel("example.org", "display") == "Display"
    assert channel("anything", "cpc", "spring_shopping") == "Paid Shopping"
    assert channel("youtube", "referral") == "Organic Video"
    assert channel("partner", "affiliate") == "Affiliates"
    assert channel("weird", "weird") == "Unassigned"


def test_replace_bumps_version_and_audits(client, auth, site, db):
    path = f"/api/v1/sites/{site['id']}/channel-rules"
    response = client.put(path, headers=auth, json={"rules": RULES})
    assert response.status_code == 200
    body = response.get_json()
    assert body["version"] == 2
    assert [rule["channel"] for rule in body["rules"]] == [rule["channel"] for rule in RULES]
    assert body["rules"][1] == {"channel": "Partners", "source_pattern": "(partner|affiliate)\\.example\\.com$",
                                "medium_pattern": None, "campaign_pattern": None, "source_category": None}
    positions = [row[0] for row in db.execute("select position from collect.channel_rules where site_id = %s "
                                              "order by position", (site["id"],))]
    assert positions == [1, 2, 3, 4]
    # A bare list is not the documented {rules: [...]}: refused, and nothing changes; the version moves on every edit.
    assert client.put(path, headers=auth, json=RULES[:1]).status_code == 422
    assert client.put(path, headers=auth, json={"rules": RULES[:1]}).get_json()["version"] == 3
    reset = client.post(f"{path}/reset", headers=auth)
    assert reset.status_code == 200 and reset.get_json()["version"] == 4
    assert reset.get_json()["rules"][0]["channel"] == "Direct"
    version_row = db.execute("select version from collect.channel_rules_versions where site_id = %s",
                             (site["id"],)).fetchone()[0]
    assert version_row == 4
    actions = [row[0] for row in db.execute("select action from collect.audit_log where action like 'channel_rules.%%' "
                                            "order by audit_id")]
    assert actions == ["channel_rules.replaced", "channel_rules.replaced", "channel_rules.reset"]


def test_invalid_rules_change_nothing(client, auth, site, db):
    path = f"/api/v1/sites/{site['id']}/channel-rules"
    before = client.get(path, headers=auth).get_json()
    cases = [
        ({"rules": []}, "rules"),
        ({"rules": "x"}, "rules"),
        ({"rules": [{"channel": ""}]}, "rules[0].channel"),
        ({"rules": [{"medium_pattern": "cpc"}]}, "rules[0].channel"),
        ({"rules": [{"channel": "A"}, {"channel": "B", "source_pattern": "(unclosed"}]}, "rules[1].source_pattern"),
        # Valid for Python, refused by PostgreSQL's regex engine (named groups):
        ({"rules": [{"channel": "A", "medium_pattern": "(?P<m>cpc)"}]}, "rules[0].medium_pattern"),
        # Valid for PostgreSQL, refused by Python (\\m: start of a word, PostgreSQL only):
        ({"rules": [{"channel": "A", "campaign_pattern": "\\mspring"}]}, "rules[0].campaign_pattern"),
        # Read as a nested set by Python, as a character class by PostgreSQL: ambiguous, refused.
        ({"rules": [{"channel": "A", "campaign_pattern": "[[:alpha:]]+"}]}, "rules[0].campaign_pattern"),
        ({"rules": [{"channel": "A", "source_category": "news"}]}, "rules[0].source_category"),
        ({"rules": [{"channel": "A", "colour": "red"}]}, "rules[0].colour"),
        ({"rules": [{"channel": "A", "source_pattern": "x" * 501}]}, "rules[0].source_pattern"),
        ({"rules": [{"channel": "A"}] * 201}, "rules"),
        ({"rulez": []}, "rulez"),
    ]
    for body, field in cases:
        error = assert_error(client.put(path, headers=auth, json=body), 422, "validation_failed")
        assert error["details"]["field"] == field, (body, error)
    assert client.get(path, headers=auth).get_json() == before
    assert db.execute("select count(*) from collect.audit_log where action like 'channel_rules.%%'").fetchone()[0] == 0


def test_concurrent_edits_each_bump_the_version(app, auth, site):
    """Edits of one site's rules apply one after the other: no lost version, no duplicate key error."""
    from concurrent.futures import ThreadPoolExecutor

    path = f"/api/v1/sites/{site['id']}/channel-rules"

    def edit(index: int) -> int:
        with app.test_client() as client:
            response = client.put(path, headers=auth, json={"rules": [{"channel": f"C{index}"}, *RULES]})
            return response.status_code

    with ThreadPoolExecutor(max_workers=6) as pool:
        statuses = list(pool.map(edit, range(12)))
    assert statuses == [200] * 12
    final = app.test_client().get(path, headers=auth).get_json()
    assert final["version"] == 13 and len(final["rules"]) == len(RULES) + 1
