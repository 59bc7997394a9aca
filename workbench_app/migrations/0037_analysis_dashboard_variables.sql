-- A saved analysis (funnel, path, retention) offers dashboards the variables `from` and `to` (a date
-- range, replacing its own) and `segment` (a saved segment), as workbench_app/analyses/compiler.py
-- DASHBOARD_VARIABLES says: its questions' variables were the compiled statement's bound values,
-- which no dashboard filter could feed.
update questions set variables = '{"from": "date", "to": "date", "segment": "segment"}'::jsonb
where kind = 'analysis';
