"""Inbound sources: signed webhooks of the chat and database services, and the database change
stream. Configuration (`sources`), signature checks (`signatures`), the inbox written before a
delivery is acknowledged (`inbox`), processing into `raw` (`processing`) and the stream follower
(`stream_follower`)."""
