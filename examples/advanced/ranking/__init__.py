"""Ranking disagreement: how far apart two orderings of the same documents are."""
