"""The selector embedded in a model: Grafting (Perkins and Theiler 2003; :mod:`.grafting`),
whose L1-penalised logistic regression's gradient decides and is re-optimised after each
addition (:mod:`.solver`)."""

from fsengine.methods.online._embedded.grafting import Grafting, GraftingEvent

__all__ = ["Grafting", "GraftingEvent"]
