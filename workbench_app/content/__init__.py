"""Saved content: folders, questions, models and metrics, dashboards."""
