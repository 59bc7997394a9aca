-- A statement its author stopped from a screen ("Cancel", POST /api/v1/sql/cancel) is recorded
-- in the query history as cancelled, neither a failure nor a refusal.
alter table query_history drop constraint query_history_status_check;
alter table query_history add constraint query_history_status_check
    check (status in ('ok', 'refused', 'failed', 'cancelled'));
