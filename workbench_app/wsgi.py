"""WSGI entry point for gunicorn: `gunicorn workbench_app.wsgi:app`."""
import gc

from workbench_app.app import create_app
from workbench_app.engine import format_sql

app = create_app()

# Fill sqlglot's lazily built dialect tables, then move everything loaded so far (Flask, sqlglot,
# DuckDB, the tool server: about 150,000 objects that live as long as the worker) out of the
# garbage collector's reach. Every full collection traversed them: a pause of tens of milliseconds
# that whichever statement was being rewritten at that moment waited through.
format_sql("SELECT 1")
gc.freeze()
