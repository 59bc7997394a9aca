"""The stored permission rules (tables, rows, columns per group) and their checks, which the engine
applies (workbench_app/engine/permissions.py) before every statement."""
