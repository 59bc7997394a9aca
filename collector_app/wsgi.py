"""WSGI entry point for gunicorn: `gunicorn collector_app.wsgi:app`."""
from collector_app.app import create_app

app = create_app()
