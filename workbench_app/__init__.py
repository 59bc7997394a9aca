"""workbench_app"""
