"""Subscriptions: a dashboard or a question sent on a schedule, by e-mail or to a webhook."""
