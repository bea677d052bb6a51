"""pipelines.beam.sinks.StatsFn: every figure of one PCollection in one combine gives what one combine per
figure gave (the graph before issue 34), over several bundles and over nothing."""

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from pipelines.beam.sinks import StatsFn, combined, count, count_by, count_by_each, stats_of, total


class _Span(beam.CombineFn):
    """min and max of the elements (a CombineFn with a list accumulator, as AcceptedProfileFn)."""

    def create_accumulator(self):
        return [None, None]

    def add_input(self, acc, x):
        return [x if acc[0] is None else min(acc[0], x), x if acc[1] is None else max(acc[1], x)]

    def merge_accumulators(self, accs):
        out = self.create_accumulator()
        for lo, hi in accs:
            if lo is not None:
                out = self.add_input(self.add_input(out, lo), hi)
        return out

    def extract_output(self, acc):
        return {"min": acc[0], "max": acc[1]}


STATS = (count("n"), count("even", lambda x: x % 2 == 0), total("sum_sq", lambda x: x * x),
         count_by("mod3", lambda x: x % 3), count_by_each("digits", lambda x: list(str(x))),
         combined("span", _Span()))


def expected(xs: list[int]) -> list[tuple]:
    by, each = {}, {}
    for x in xs:
        by[x % 3] = by.get(x % 3, 0) + 1
        for d in str(x):
            each[d] = each.get(d, 0) + 1
    return [("n", len(xs)), ("even", sum(x % 2 == 0 for x in xs)), ("sum_sq", sum(x * x for x in xs)),
            ("mod3", dict(sorted(by.items()))), ("digits", dict(sorted(each.items()))),
            ("span", {"min": min(xs, default=None), "max": max(xs, default=None)})]


def test_merged_accumulators_give_the_figures_of_all_elements():
    fn = StatsFn(STATS)
    xs = list(range(1, 40))
    parts = [xs[:7], xs[7:20], [], xs[20:]]
    accs = []
    for part in parts:
        acc = fn.create_accumulator()
        for x in part:
            acc = fn.add_input(acc, x)
        accs.append(acc)
    assert fn.extract_output(fn.merge_accumulators(accs)) == expected(xs)
    assert fn.extract_output(fn.create_accumulator()) == expected([])


def test_in_a_pipeline_and_over_an_empty_pcollection():
    xs = [3, 14, 15, 92, 65, 35, 89, 79, 32, 38]
    with beam.Pipeline() as p:
        full = stats_of(p | "Some" >> beam.Create(xs), "Some", *STATS)
        empty = stats_of(p | "None" >> beam.Create([]) | beam.Filter(lambda x: False), "None", *STATS)
        assert_that(full, equal_to(expected(xs)), label="CheckSome")
        assert_that(empty, equal_to(expected([])), label="CheckNone")
