"""What the workbench keeps about its own use: the audit log and the query history."""
