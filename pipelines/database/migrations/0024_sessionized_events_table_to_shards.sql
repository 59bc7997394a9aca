-- Issue 17: int_events_sessionized is now a view over two shard tables
-- (int_events_sessionized_shard_0 and _1, see dbt_project/macros/sessionization.sql). The
-- 15-minute build fills the shards but leaves views alone, so a table of that name from before
-- would stay in place, frozen, until the nightly full build replaced it: int_conversions and the
-- marts' views would read stale events (and int_conversions would miss the conversions of the
-- new visits for good). The old table goes now, with the views that read it; views_missing_sensor
-- then starts a full build, which builds the shards, the view and those views again. On a new
-- database the table does not exist.
do $$
begin
    if exists (select 1
                 from pg_class as c
                 join pg_namespace as n on n.oid = c.relnamespace
                where n.nspname = 'intermediate'
                  and c.relname = 'int_events_sessionized'
                  and c.relkind = 'r') then
        drop table intermediate.int_events_sessionized cascade;
    end if;
end
$$;
