"""Plain words for the papers' terms, shown where the pages use them."""

from fsengine.methods.registry import get_method

#: Term -> what it means, for the dashboard's help texts and the Stream page's glossary.
TERMS = {
    "dependency": "K-OFSD's score of a feature set: the share of samples whose K nearest "
    "neighbours on those features agree with their own class (the card function decides how "
    "a sample's neighbours count), so 1 means every sample is surrounded by its own class.",
    "card function": "How one sample's K neighbours are turned into a number between 0 and 1. "
    "K-OFSD's own (imbalanced) card treats minority samples so that the rare class is not "
    "drowned by the majority.",
    "alpha": "K-OFSD's relevance threshold: a gene whose dependency alone is not above alpha "
    "is discarded at once.",
    "reduct": "CIE-OSFS: a smallest set of genes that tells the classes apart as well as all "
    "the genes seen so far (the same conditional entropy H(D|S)).",
    "H(D|SF)": "Conditional entropy of the class D given the selected genes S (binned), in "
    "bits: 0 means the genes determine the class.",
    "mean correlation of S": "OFS-FPD: the mean absolute correlation among the selected genes "
    "(lower means less redundant).",
    "d-": "A ranker computed on a decomposition of the classes (Yin et al. 2013): the majority "
    "is split into k-means clusters and each is scored against the minority, so one large "
    "class does not swamp the score. d-fisher is Fisher's score on that decomposition.",
    "G-mean": "The square root of minority recall x rest recall: 0 when either class is never "
    "recognised, 1 when both always are. Unlike accuracy it cannot be high by ignoring the "
    "minority.",
}


def action_help(method: str) -> str:
    """What each action of ``method``'s events means, one line each (from its spec)."""
    return "  \n".join(
        f"**{name}**: {text}" for name, text in get_method(method).spec.actions.items()
    )
