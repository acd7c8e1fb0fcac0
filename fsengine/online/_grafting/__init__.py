"""Grafting (Perkins and Theiler 2003): the selector (:mod:`.selector`) and its
re-optimisation, an L1-penalised logistic regression (:mod:`.solver`)."""

from fsengine.online._grafting.selector import Grafting, GraftingEvent

__all__ = ["Grafting", "GraftingEvent"]
