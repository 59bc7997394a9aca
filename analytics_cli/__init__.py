"""The `analytics` command line: database control, migrations and running the product."""
