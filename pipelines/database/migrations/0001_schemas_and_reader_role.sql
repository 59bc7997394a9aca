-- Schemas of the warehouse and the read-only role of the exposed views.
create schema collect;
comment on schema collect is 'Sites, their metadata, keys, salts, counters, privacy requests and audit log. Written by the collector and maintenance.';
create schema raw;
comment on schema raw is 'Events as received, partitioned by month. Written by the collector only.';
create schema analytics;
comment on schema analytics is 'Documented views over the modeled data. The only schema readable by analytics_reader.';

-- Roles are cluster-wide: another database on the same server may have created it already.
do $$
begin
    if not exists (select from pg_roles where rolname = 'analytics_reader') then
        create role analytics_reader login nosuperuser nocreatedb nocreaterole noinherit;
    end if;
end
$$;
-- A second wall behind the grants: every transaction of the reader is read-only by default.
alter role analytics_reader set default_transaction_read_only = on;

revoke all on schema public from public;
revoke all on schema collect, raw from public;
grant usage on schema analytics to analytics_reader;
-- Views created later in analytics (by dbt and the event-view asset) become readable at once.
alter default privileges in schema analytics grant select on tables to analytics_reader;
