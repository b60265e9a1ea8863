"""zerotrace's processor from Python.

    from zerotrace import TraceProcessor
    with TraceProcessor("trace.pftrace") as tp:
        for row in tp.query("SELECT name, dur FROM slice LIMIT 3"):
            print(row.name, row.dur)

The same surface as upstream Perfetto's `perfetto.trace_processor` (query
rows as attributes, `as_pandas_dataframe()` when pandas is installed),
over `ztrace serve`: a server started on a free port for the trace, or one
already running (`TraceProcessor(addr="127.0.0.1:9001")`).
"""

from zerotrace.query_result import QueryResultIterator, Row
from zerotrace.trace_processor import (TraceProcessor, TraceProcessorConfig,
                                       TraceProcessorException)

__all__ = [
    "QueryResultIterator",
    "Row",
    "TraceProcessor",
    "TraceProcessorConfig",
    "TraceProcessorException",
]
