"""Dashboard PDFs printed by Chromium's print engine from the same page a person sees."""
