-- The home page: what each person opened or changed last, and what administrators pinned for
-- everyone (each person sees only the pins of folders they may read).
create table recent_items (
    user_id    bigint not null references users on delete cascade,
    kind       text not null check (kind in ('dashboard', 'question')),
    item_id    bigint not null,
    seen_at    timestamptz not null default now(),
    primary key (user_id, kind, item_id)
);
create index recent_items_latest on recent_items (user_id, seen_at desc);

create table pinned_items (
    kind       text not null check (kind in ('dashboard', 'question')),
    item_id    bigint not null,
    pinned_by  bigint references users on delete set null,  -- null: pinned by the product (the demo)
    pinned_at  timestamptz not null default now(),
    primary key (kind, item_id)
);

-- An installation whose Demo folder was made before pins existed: its dashboard is pinned as a new one is.
insert into pinned_items (kind, item_id)
select 'dashboard', d.dashboard_id
from dashboards d join folders f using (folder_id)
where d.name = 'Demo dashboard' and f.name = 'Demo' and f.parent_id is null
  and exists (select from seeded_content where name = 'demo_folder')
on conflict do nothing;
