"""The tools that agents call: the agent tool server's clients (MCP) and the AI assistant alike."""
