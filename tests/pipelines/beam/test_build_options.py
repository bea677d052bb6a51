"""The build's Beam options make each view once, and a copy of them has views of its own."""

import copy
import pickle

from apache_beam.options.pipeline_options import DirectOptions, StandardOptions, TypeOptions

from pipelines.beam.options import BuildOptions
from pipelines.build import new_pipeline
from pipelines.runners import QABASE_LOCAL


def test_a_view_is_made_once_and_reads_and_writes_the_options_values():
    options = BuildOptions(["--runner=DirectRunner", "--direct_num_workers=2"])
    view = options.view_as(StandardOptions)
    assert options.view_as(StandardOptions) is view
    assert view.runner == "DirectRunner" and options.view_as(DirectOptions).direct_num_workers == 2
    options.view_as(DirectOptions).direct_num_workers = 3  # a write through one view is seen by every caller
    assert options.get_all_options()["direct_num_workers"] == 3
    assert options.view_as(DirectOptions).direct_num_workers == 3


def test_a_copy_or_a_pickle_has_views_of_its_own_values():
    options = BuildOptions(["--direct_num_workers=2"])
    options.view_as(DirectOptions)
    for other in (copy.deepcopy(options), pickle.loads(pickle.dumps(options))):
        other.view_as(DirectOptions).direct_num_workers = 5
        assert other.view_as(DirectOptions).direct_num_workers == 5
        assert options.view_as(DirectOptions).direct_num_workers == 2


def test_only_the_local_runner_builds_without_beams_type_inference():
    _, local = new_pipeline([f"--runner={QABASE_LOCAL}"])
    _, direct = new_pipeline(["--runner=DirectRunner"])
    assert local.view_as(TypeOptions).pipeline_type_check is False
    assert direct.view_as(TypeOptions).pipeline_type_check is True
