-- Linked filters complete (issue 12): a date range (relative choices or from/to) and a one-of
-- list whose values come from a column the viewer may read (`values_table`, `values_column`).
-- A link feeds a card's variable (a date range: `variable` takes the first day, `end_variable`
-- the last) or a column of the card's result (`column_name`: the server wraps the card's
-- statement and adds the condition, values bound as parameters).
alter table dashboard_filters drop constraint dashboard_filters_type_check;
alter table dashboard_filters add constraint dashboard_filters_type_check
    check (type in ('text', 'number', 'date', 'date_range', 'one_of'));
alter table dashboard_filters add column values_table text;
alter table dashboard_filters add column values_column text;
alter table dashboard_filters add constraint dashboard_filters_values_source
    check ((type = 'one_of') = (values_table is not null and values_column is not null));

alter table dashboard_filter_links alter column variable drop not null;
alter table dashboard_filter_links add column end_variable text;
alter table dashboard_filter_links add column column_name text;
alter table dashboard_filter_links add constraint dashboard_filter_links_one_target
    check ((variable is null) <> (column_name is null));
