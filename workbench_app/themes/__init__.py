"""Themes: fonts, colours, card style, chart palette, logo and PDF layout, inherited along folders."""
