"""What the sensors watch: the state that, when it moves, calls for work."""
from __future__ import annotations

import psycopg


def channel_rules_versions(conn: psycopg.Connection) -> dict[str, int]:
    """Version of each site's channel rules (bumped on every edit), plus the source categories'.

    The categories are part of the channel decision, so their edit is a change too.
    """
    versions = {str(site): version for site, version in conn.execute(
        "select site_id, version from collect.channel_rules_versions")}
    versions["source_categories"] = conn.execute(
        "select hashtext(coalesce(string_agg(source || '=' || category, ',' order by source), ''))"
        " from collect.source_categories").fetchone()[0]
    return versions


def pending_privacy_requests(conn: psycopg.Connection) -> list[str]:
    """Ids of the requests waiting to be processed, oldest first."""
    return [str(request_id) for (request_id,) in conn.execute(
        "select request_id from collect.privacy_requests where state = 'pending' order by requested_at")]
