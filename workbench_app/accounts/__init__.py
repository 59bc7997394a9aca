"""People of the workbench: local accounts, groups, attributes and API tokens."""
