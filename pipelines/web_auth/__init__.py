"""Sign-in for people in a browser, shared by the workbench and the collector's administration pages.

Framework-free: `sessions` keeps server-side sessions (cookie secret hashed at rest, idle and
absolute expiry, one CSRF token each) in a table of the app's own database; `throttle` slows
down repeated sign-in failures per account and per client address, in memory only; `passwords`
hashes them (argon2id) and holds their length rule; `setup_links` is the one-time link of the
first-run setup that creates an app's first administrator.
"""
