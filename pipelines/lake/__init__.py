"""The lake: Parquet files beside PostgreSQL that the workbench reads (layout.py is the contract)."""
