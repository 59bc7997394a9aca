"""WSGI entry point for gunicorn: `gunicorn collector_app.wsgi:app`."""
from collector_app.app import create_app
from collector_app.collect_api import start_ingestion

app = create_app()
start_ingestion(app)
