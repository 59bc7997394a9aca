"""Administration of the collector: admin tokens, sites, server keys, metadata, privacy requests.

Plain functions over a psycopg connection, no web framework: the HTTP layer lives in
`collector_app/admin_api`. Functions that change something write their audit entry in the same
transaction, so a change and its audit record commit or roll back together.
"""
