"""CHAIR (Rohrbach et al., 2018): how often a captioner mentions objects that are not there."""

from collections.abc import Sequence


def chair_scores(mentioned_objects: Sequence[Sequence[str]],
                 true_objects: Sequence[Sequence[str]]) -> tuple[float, float]:
    """(CHAIR_i, CHAIR_s) of a set of captions.

    mentioned_objects[k]: the objects caption k mentions, one entry per mention (an object
    mentioned twice appears twice); true_objects[k]: the objects really in image k. A mention
    is hallucinated when it is not among image k's true objects (exact string match).
    CHAIR_i = hallucinated mentions / all mentions, pooled over all captions (not averaged
    per caption); CHAIR_s = captions with at least one hallucinated mention / captions.
    Both are floats in [0, 1].
    """
    ### BEGIN SOLUTION
    mentions = hallucinated = bad_captions = 0
    for mentioned, true in zip(mentioned_objects, true_objects, strict=True):
        present = set(true)
        wrong = sum(1 for obj in mentioned if obj not in present)
        mentions += len(mentioned)
        hallucinated += wrong
        bad_captions += wrong > 0
    return hallucinated / mentions, bad_captions / len(mentioned_objects)
    ### END SOLUTION
