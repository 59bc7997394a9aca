-- Dashboards as a product (issue 12): a heading is a card of its own (a title line across the
-- grid), and a filter may be required (its cards wait for a value rather than run without one).
alter table dashboard_cards drop constraint dashboard_cards_kind_check;
alter table dashboard_cards add constraint dashboard_cards_kind_check check (kind in ('question', 'text', 'heading'));

alter table dashboard_filters add column required boolean not null default false;
