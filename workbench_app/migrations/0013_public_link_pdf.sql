-- A public link may offer the dashboard as PDF (GET /api/v1/public/<secret>/pdf): chosen when the
-- link is made, off unless asked for. Embeds say it in their token (`permissions`), not here.
alter table public_links add column allow_pdf boolean not null default false;
