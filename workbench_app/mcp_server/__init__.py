"""The agent tool server: MCP over streamable HTTP, mounted at /mcp of the workbench."""
