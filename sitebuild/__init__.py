"""Builds the site: runs each chapter once and publishes its outputs, figures and notebook. Not part of the tutorial.

Two parts, by the process their code runs in: `in_mkdocs` (the MkDocs plugin and what it calls) and
`in_chapter` (what runs in each chapter's process). `fingerprint` serves both.
"""
