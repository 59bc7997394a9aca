"""Funnels, paths and retention: a definition checked by `shapes.py`, compiled to one SQL statement
over the analytics views by `compiler.py`, and run through the statement path like any question."""
