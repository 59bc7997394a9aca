"""collector_app"""
