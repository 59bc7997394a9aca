"""Dashboards shared outside the workbench's own screens: public links and signed embeds.

`shared_view.resolve` is the one answer to "who runs this, which dashboard, which filters": the
public page, the embed page and their data calls (runs, CSV) all go through it on every call.
"""
