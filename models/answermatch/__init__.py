"""Does this answer answer this question? A judge of answers that reads the question and the answer together
(models.cross_encoder on the packaged e5), for the non-answers no rule knows: inabilities stated as facts, topic
headings in place of an answer, tautologies, deferrals, another question's answer."""
