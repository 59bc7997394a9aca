"""PostgreSQL access: the embedded server, connections, migrations."""
