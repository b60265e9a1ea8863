"""The TraceProcessorRpc stream over a websocket, as Perfetto UI speaks it:
numbered requests framed as `0x0A <len> <msg>`, answers read back from
the byte stream whatever the websocket messages' boundaries."""

from serve_harness import pb


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def frame(message_bytes):
    return b"\x0a" + _varint(len(message_bytes)) + message_bytes


class RpcChannel:
    def __init__(self, ws):
        self.ws = ws
        self.next_seq = 0
        self._buffer = b""

    def request(self, method, **fields):
        """A request's framed bytes, numbered (not sent)."""
        rpc = pb.TraceProcessorRpc()
        rpc.seq = self.next_seq
        self.next_seq += 1
        rpc.request = method
        for name, value in fields.items():
            if name == "query":
                rpc.query_args.sql_query = value
            else:
                setattr(rpc, name, value)
        return frame(rpc.SerializeToString())

    def send(self, method, **fields):
        self.ws.send(self.request(method, **fields))

    def read(self):
        """The next answer; None if the server closed first."""
        while True:
            message = self._take()
            if message is not None:
                rpc = pb.TraceProcessorRpc()
                rpc.ParseFromString(message)
                return rpc
            data = self.ws.recv()
            if data is None:
                return None
            self._buffer += data

    def _take(self):
        b = self._buffer
        if not b:
            return None
        if b[0] != 0x0A:
            raise AssertionError(f"answer stream: expected field 1 (0x0a), got {b[0]:#x}")
        n, shift, i = 0, 0, 1
        while True:
            if i >= len(b):
                return None
            n |= (b[i] & 0x7F) << shift
            shift += 7
            i += 1
            if not b[i - 1] & 0x80:
                break
        if len(b) < i + n:
            return None
        self._buffer = b[i + n:]
        return b[i:i + n]

    def query(self, sql):
        """Sends a query and reads its answers: (merged QueryResult, messages)."""
        self.send(pb.TraceProcessorRpc.TPM_QUERY_STREAMING, query=sql)
        return self.read_query()

    def read_query(self):
        merged = pb.QueryResult()
        messages = []
        while True:
            rpc = self.read()
            if rpc is None:
                raise AssertionError("the server closed during a query")
            messages.append(rpc)
            merged.MergeFrom(rpc.query_result)
            if rpc.query_result.batch and rpc.query_result.batch[-1].is_last_batch:
                return merged, messages
