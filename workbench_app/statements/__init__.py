"""The statement path: a statement from the editor, a question, a card or a tool, run under the caller's
permissions (query_runner), and what is built on it: native SQL, the schema browser, CSV export, and
previewing as another person."""
