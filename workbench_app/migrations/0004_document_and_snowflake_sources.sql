-- Two more kinds of source: a CouchDB server (databases read as tables) and Snowflake.
alter table sources drop constraint sources_kind_check;
alter table sources add constraint sources_kind_check
    check (kind in ('warehouse', 'postgres', 'mysql', 'sqlite', 'duckdb', 'files', 'couchdb', 'snowflake'));
