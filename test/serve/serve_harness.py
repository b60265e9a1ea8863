"""What the `ztrace serve` tests share: a server on a free port, raw HTTP
requests, and the wire messages (python/zerotrace's generated classes)."""

import http.client
import os
import socket
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

from zerotrace import trace_processor_pb2 as pb  # noqa: E402

ZTRACE = os.environ.get("ZTRACE", "ztrace")
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
SMALL_TRACE = os.path.join(DATA, "perfetto_v14", "inprocess_small.pftrace")
# Every wait is bounded: a server that does not answer fails the test.
TIMEOUT = 30


class Server:
    """`ztrace serve [trace] --port 0`, stopped by stop()."""

    def __init__(self, trace=None, extra_args=()):
        command = [ZTRACE, "serve", "--port", "0", *extra_args]
        if trace:
            command.append(trace)
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        stdin=subprocess.DEVNULL, text=True)
        self.stderr = []
        threading.Thread(target=self._drain, daemon=True).start()
        line = {}
        reader = threading.Thread(target=lambda: line.setdefault("l", self.process.stdout.readline()),
                                  daemon=True)
        reader.start()
        reader.join(TIMEOUT)
        text = line.get("l", "")
        if not text.startswith("Serving on http://"):
            self.stop()
            raise RuntimeError(f"ztrace serve did not start: {text!r} {''.join(self.stderr)}")
        self.port = int(text.rsplit(":", 1)[1])

    def _drain(self):
        try:
            for l in self.process.stderr:
                self.stderr.append(l)
        except ValueError:  # Closed by stop().
            pass

    def stop(self):
        """Stops with SIGTERM; returns the exit code."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise RuntimeError("ztrace serve ignored SIGTERM")
        self.process.stdout.close()
        self.process.stderr.close()
        return self.process.returncode

    def connection(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)


def request(conn, method, path, body=None, headers=None):
    """(status, body bytes, headers dict)."""
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    return response.status, data, {k.lower(): v for k, v in response.getheaders()}


def query_args(sql):
    args = pb.QueryArgs()
    args.sql_query = sql
    return args.SerializeToString()


def rows_of(result):
    """A merged QueryResult's rows as lists of Python values."""
    width = len(result.column_names)
    cells = []
    for batch in result.batch:
        varints, doubles, blobs = iter(batch.varint_cells), iter(batch.float64_cells), iter(batch.blob_cells)
        text = batch.string_cells
        if isinstance(text, bytes):  # Not valid UTF-8.
            text = text.decode("utf-8", "replace")
        strings = iter(text.split("\0"))
        for t in batch.cells:
            cells.append({1: lambda: None, 2: lambda: next(varints), 3: lambda: next(doubles),
                          4: lambda: next(strings), 5: lambda: next(blobs)}[t]())
    return [cells[i:i + width] for i in range(0, len(cells), width)] if width else []


def raw_exchange(port, data, timeout=TIMEOUT):
    """Sends raw bytes on a new connection; everything the server sends
    back until it closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out
            out += chunk
