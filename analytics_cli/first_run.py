"""What `analytics up` and `analytics demo` prepare for a newcomer: the setup links of the first
administrators (the workbench's and the collector's pages), and the Demo folder when the
warehouse holds the demo site."""
from __future__ import annotations

from pipelines.admin import admin_setup
from pipelines.database import connection
from pipelines.demo import demo_exists
from pipelines.settings import Settings
from workbench_app import metadata_database
from workbench_app.accounts import setup_link
from workbench_app.home.demo_content import seed_demo_content
from workbench_app.home.site_reports import add_segment_filters, seed_for_sites, sites_in


def _local_base(settings: Settings, port: int) -> str:
    # Listening on every address: the link that works on this machine.
    host = {"0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(settings.bind_host, settings.bind_host)
    return f"http://{host}:{port}"


def setup_url(settings: Settings) -> str | None:
    """A new setup link while the workbench has no administrator (the previous one stops working)."""
    with connection.connect(metadata_database.metadata_url(settings)) as conn:
        token = setup_link.issue(conn)
    if token is None:
        return None
    return f"{_local_base(settings, settings.workbench_port)}/setup?token={token}"


def collector_setup_url(settings: Settings, analytics_url: str) -> str | None:
    """A new setup link while the collector's administration pages have no administrator account."""
    with connection.connect(analytics_url) as conn:
        token = admin_setup.issue(conn)
    if token is None:
        return None
    return f"{_local_base(settings, settings.collector_port)}/admin/setup?token={token}"


def seed_demo_folder(settings: Settings, analytics_url: str) -> bool | None:
    """The workbench's Demo folder, once, when the demo site exists: True when created now, False
    when done before (even if people since deleted it), None without the demo site. The report
    set of each site without one is made too (the demo site's among them)."""
    with connection.connect(analytics_url) as conn:
        demo = demo_exists(conn)
        sites = sites_in(conn) or []
    with connection.connect(metadata_database.metadata_url(settings)) as conn:
        created = seed_demo_content(conn) if demo else None
        add_segment_filters(conn)  # report sets made before the Segment filter get it, once
        seed_for_sites(conn, sites)
        return created
