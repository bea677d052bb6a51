"""Viewpoints of long answers that open alike: the one-topic groups (benchmarks/viewpoint_onetopic_*.jsonl) with
every answer lengthened by a preamble that fills the aggregator's embedded opening, as a chatbot's long answers
open ("That is a question many people ask..."), then grouped and scored as benchmarks/viewpoint_eval.py does.

    python benchmarks/viewpoint_long_answers.py [--files heldout heldout2] [--openings same|varied]

``same``: one preamble for every answer of a group (the aggregator reads past it, models.aggregators.gist);
``varied``: one of three preambles by the answer's position (not solved: the answers group by preamble).
The preambles are written here; the points are the groups' own answers.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

EN = ["That is a question many people ask, and there is no single short answer to \"{q}\". People who talk about "
      "it usually have one particular side of it in mind, and which side depends on who you ask. Here is one way "
      "to look at it. ",
      "Good question! \"{q}\" can be answered in more than one way, because it means different things to "
      "different people, depending on where they live, how they grew up and what they care about most. One "
      "common view is this: ",
      "When you ask \"{q}\", the answer depends a great deal on perspective; there are several aspects people "
      "mention, and none of them is the only right one, although each is important to many people. Here's one "
      "of them. "]
ZH = ["这个问题看起来很简单，但仔细想想并不容易回答。关于“{q}”，很多人都有过同样的疑问，其实并没有一个统一的答案，不同的人关注的"
      "往往是其中不同的方面，这和每个人的经历、所在的地方以及看问题的角度都有关系。下面从一个角度来说一说。",
      "好问题！“{q}”可以从很多角度来回答，因为它对不同的人来说意味着不同的东西，这取决于他们生活在哪里、是怎样长大的，以及他们最看"
      "重的是什么，所以答案也各不相同。比较常见的一种看法是这样的：",
      "说到“{q}”，答案在很大程度上取决于你从什么角度去看。人们通常会提到好几个方面，没有哪一个是唯一正确的，但每一个方面对很多人来"
      "说都很重要，也都有它自己的道理。这里说其中的一个方面。"]


def lengthen(group: dict, varied: bool) -> dict:
    q = group["question"].rstrip("?？")
    pool = ZH if group["lang"] == "zh" else EN
    answers = [dict(a, text=pool[i % 3 if varied else 0].format(q=q) + a["text"])
               for i, a in enumerate(group["answers"])]
    return dict(group, answers=answers, id=group["id"] + "-long")


def main(argv: list[str] | None = None) -> int:
    import viewpoint_eval as ve

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", nargs="+", default=["heldout", "heldout2"], help="one-topic files: tune, heldout, ...")
    ap.add_argument("--openings", choices=("same", "varied"), default="same")
    args = ap.parse_args(argv)
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    groups = [g for f in args.files for g in ve.load_groups(HERE / f"viewpoint_onetopic_{f}.jsonl")]
    print(ve.markdown(ve.evaluate([lengthen(g, args.openings == "varied") for g in groups])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
