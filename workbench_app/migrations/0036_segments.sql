-- Saved segments (workbench_app/content/segments.py): a set of conditions on visits (channels,
-- countries, devices, landing page, a goal reached, an event with properties), kept in a folder
-- and so with the folder's access, like questions. A dashboard filter of type "segment" and a
-- builder question name one; it compiles to a subquery over the analytics views at run time.
create table segments (
    segment_id  bigint generated always as identity primary key,
    folder_id   bigint not null references folders on delete cascade,
    name        text not null,
    description text not null default '',
    conditions  jsonb not null,
    created_by  bigint references users on delete set null,
    created_at  timestamptz not null default now(),
    updated_at  timestamptz not null default now()
);
create index segments_folder on segments (folder_id);
-- A dashboard filter of type "segment" picks a saved segment (its value: the segment's id).
alter table dashboard_filters drop constraint dashboard_filters_type_check;
alter table dashboard_filters add constraint dashboard_filters_type_check
    check (type in ('text', 'number', 'date', 'date_range', 'one_of', 'segment'));
