"""The AI assistant: provider settings, private conversations, answers using the reading tools."""
