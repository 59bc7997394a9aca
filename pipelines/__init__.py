"""Domain core of the analytics platform.

Settings, database access and migrations, the event model and its validation, visitor hashing,
partition maintenance, privacy requests, inbound sources and demo data. Importable by every
component; it imports no web framework and no Dagster.
"""
