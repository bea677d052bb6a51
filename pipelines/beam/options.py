"""The build's Beam options, each of whose views is made once.

Beam asks a pipeline's options for a view (``options.view_as(TypeOptions)``, ...) at every transform it applies and
again while it runs: about 2,700 times in a +1% day's build, each building an argparse parser over every option of
the view's class (0.6 ms each on 2 cores, 1.6 s of the day). Every view reads and writes the options' one shared
dict (``_all_options``), so one view per class serves every caller as a fresh one would.
"""

from __future__ import annotations

from apache_beam.options.pipeline_options import PipelineOptions

_VIEWS = "_views"


class BuildOptions(PipelineOptions):
    """:class:`PipelineOptions` whose ``view_as`` gives the same view of a class each time."""

    def view_as(self, cls):
        views = self.__dict__.setdefault(_VIEWS, {})
        if cls not in views:
            views[cls] = super().view_as(cls)
        return views[cls]

    def __getstate__(self):
        # a copy (Beam's Pipeline deep-copies its options) or a pickle starts with no views: each view holds the
        # dict of the options it was made from, and the copy may not share it
        return {k: v for k, v in super().__getstate__().items() if k != _VIEWS}
