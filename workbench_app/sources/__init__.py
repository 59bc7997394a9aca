"""Sources: the connections that become catalogs of the engine in every worker."""
