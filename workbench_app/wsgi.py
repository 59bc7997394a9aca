"""WSGI entry point for gunicorn: `gunicorn workbench_app.wsgi:app`."""
from workbench_app.app import create_app

app = create_app()
