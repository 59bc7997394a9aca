-- The helper functions catch errors (an exception block is a subtransaction), which PostgreSQL
-- refuses inside parallel workers: they are parallel restricted, not parallel safe.
alter function staging.url_decode(text) parallel restricted;
alter function staging.rule_matches(text, text) parallel restricted;
