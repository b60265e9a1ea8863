"""Rows of a query, decoded from the QueryResult messages `ztrace serve`
sends (one per batch; their concatenation parses as one message)."""

from zerotrace import trace_processor_pb2 as pb

_Batch = pb.QueryResult.CellsBatch


class Row:
    """One row: each column an attribute (`row.name`), as upstream's rows
    are. `row[i]` and `dict(row)`-style access work too."""

    __slots__ = ("_columns", "_values")

    def __init__(self, columns, values):
        self._columns = columns
        self._values = values

    def __getattr__(self, name):
        try:
            return self._values[self._columns[name]]
        except KeyError:
            raise AttributeError(f"no column {name!r} (columns: {', '.join(self._columns)})") from None

    def __getitem__(self, index):
        return self._values[index]

    def keys(self):
        return list(self._columns)

    def __repr__(self):
        return "Row(" + ", ".join(f"{c}={v!r}" for c, v in zip(self._columns, self._values)) + ")"


def _cells(batch):
    """The batch's cells in order, as Python values."""
    varints = iter(batch.varint_cells)
    doubles = iter(batch.float64_cells)
    blobs = iter(batch.blob_cells)
    # Every string ends with a NUL; the part after the last one is empty.
    # The field is bytes when it is not valid UTF-8 (a name cut in the
    # middle of a character): such bytes are replaced, not fatal.
    text = batch.string_cells
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    strings = iter(text.split("\0")) if text else iter(())
    take = {
        _Batch.CELL_VARINT: lambda: next(varints),
        _Batch.CELL_FLOAT64: lambda: next(doubles),
        _Batch.CELL_STRING: lambda: next(strings),
        _Batch.CELL_BLOB: lambda: next(blobs),
        _Batch.CELL_NULL: lambda: None,
    }
    for cell_type in batch.cells:
        reader = take.get(cell_type)
        if reader is None:
            raise ValueError(f"unknown cell type {cell_type} in a query result")
        yield reader()


class QueryResultIterator:
    """The rows of one query. Iterate it for `Row`s, or call
    `as_pandas_dataframe()` (needs pandas) first thing."""

    def __init__(self, result):
        # `result`: a QueryResult (all batches merged). An error was raised
        # before this is built.
        self.column_names = list(result.column_names)
        self._index = {name: i for i, name in enumerate(self.column_names)}
        self._batches = result.batch
        self._consumed = False
        count = len(self.column_names)
        self._row_count = sum(len(b.cells) for b in self._batches) // count if count else 0

    def __len__(self):
        return self._row_count

    def __iter__(self):
        self._consumed = True
        width = len(self.column_names)
        if width == 0:
            return
        row = []
        for batch in self._batches:
            for value in _cells(batch):
                row.append(value)
                if len(row) == width:
                    yield Row(self._index, row)
                    row = []

    def as_pandas_dataframe(self):
        """The rows as a pandas DataFrame, one column per result column."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("as_pandas_dataframe() needs pandas "
                              "(Debian: apt-get install python3-pandas)") from e
        if self._consumed:
            raise RuntimeError("as_pandas_dataframe() must come before iterating the rows")
        self._consumed = True
        width = len(self.column_names)
        columns = [[] for _ in range(width)]
        if width:
            i = 0
            for batch in self._batches:
                for value in _cells(batch):
                    columns[i].append(value)
                    i = (i + 1) % width
        frame = pandas.DataFrame(dict(enumerate(columns)))
        frame.columns = self.column_names  # Names may repeat.
        return frame
