"""Kakomimasu (囲みマス) as played on the official server: the turn, the area fill, replay and judgement.

``engine`` (the turn), ``game`` (reading logs), ``replay`` (the fold and its findings),
``checks`` (the catalog). See docs/rules/kakomimasu.md.
"""
