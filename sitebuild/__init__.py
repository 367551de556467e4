"""Builds the site: runs each chapter once and publishes its outputs, figures and notebook. Not part of the tutorial."""
