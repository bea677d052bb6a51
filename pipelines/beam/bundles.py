"""One bundle through a DoFn outside Beam's own workers, and an element's value: what qabase's runners
(pipelines.dask_runner, pipelines.local_runner) share."""

from __future__ import annotations

from apache_beam import DoFn
from apache_beam.runners.common import DoFnContext, DoFnInvoker, DoFnSignature, _OutputHandler
from apache_beam.utils.windowed_value import WindowedValue


def unwrap(item):
    """An element as the next step sees it: its value (windows are global in this build)."""
    return item.value if isinstance(item, WindowedValue) else item


def run_bundle(fn: DoFn, label: str, window_fn, main_receiver, tagged_receivers, sides: list, args, kwargs,
               windowed_items) -> None:
    """``fn`` set up, one bundle of ``windowed_items`` (WindowedValues) processed, finished and torn down, through
    Beam's own ``DoFnInvoker``: its main outputs go to ``main_receiver``, its tagged ones to ``tagged_receivers[tag]``
    (what ``finish_bundle`` emits included); ``sides``: its side inputs (SideInputMaps); ``args``, ``kwargs``: the
    ParDo's, with placeholders where the side inputs go."""
    handler = _OutputHandler(window_fn=window_fn, main_receivers=main_receiver, tagged_receivers=tagged_receivers,
                             per_element_output_counter=None, output_batch_converter=None,
                             process_yields_batches=False, process_batch_yields_elements=False)
    invoker = DoFnInvoker.create_invoker(
        DoFnSignature(fn), handler, context=DoFnContext(label, state=None), side_inputs=sides,
        input_args=list(args), input_kwargs=kwargs, user_state_context=None,
        bundle_finalizer_param=DoFn.BundleFinalizerParam())
    invoker.invoke_setup()
    invoker.invoke_start_bundle()
    for item in windowed_items:
        invoker.invoke_process(item)
    invoker.invoke_finish_bundle()
    invoker.invoke_teardown()
