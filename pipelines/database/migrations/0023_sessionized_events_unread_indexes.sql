-- Issue 17: int_events_sessionized no longer has indexes on visit_id and event_id (nothing reads
-- an event by them, and each cost the 15-minute build an insertion at a random place per new
-- event). dbt creates indexes only with the table, so a table built before keeps them until a
-- full refresh: they are dropped here. On a new database the table does not exist yet.
do $$
declare
    unread_index regclass;
begin
    for unread_index in
        select i.indexrelid::regclass
          from pg_index as i
          join pg_attribute as a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
         where i.indrelid = to_regclass('intermediate.int_events_sessionized')
           and i.indnatts = 1
           and a.attname in ('visit_id', 'event_id')
    loop
        execute format('drop index %s', unread_index);
    end loop;
end
$$;
