"""Outgoing deliveries of subscriptions and alerts: e-mail through an SMTP server, and signed webhooks."""
