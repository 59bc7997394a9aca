-- A question may be a funnel, a path or a retention analysis (workbench_app/analyses): its
-- definition is kept in `analysis`, and its SQL compiled from it on save, as a builder question's.
alter table questions drop constraint questions_kind_check;
alter table questions add constraint questions_kind_check check (kind in ('sql', 'builder', 'analysis'));
alter table questions add column analysis jsonb;
