"""The home page the workbench opens on: what the person opened or changed last, what is pinned
for everyone, and for an administrator the next steps of a new installation not yet done."""
