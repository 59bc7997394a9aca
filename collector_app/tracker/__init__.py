"""The browser tracking script served at `GET /a.js` (see README.md beside this file)."""
from collector_app.tracker.render import TrackerAsset, render_tracker, tracker_asset

__all__ = ["TrackerAsset", "render_tracker", "tracker_asset"]
