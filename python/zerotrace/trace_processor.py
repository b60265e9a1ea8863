"""TraceProcessor: queries over `ztrace serve`'s HTTP endpoints, as
upstream's Python API speaks to `trace_processor_shell --httpd`."""

import http.client
import os
import shutil
import subprocess
import threading

from zerotrace import trace_processor_pb2 as pb
from zerotrace.query_result import QueryResultIterator

# Pieces of a trace sent to /parse: as upstream's Python API sends them.
_PARSE_CHUNK_BYTES = 1 << 20


class TraceProcessorException(Exception):
    """A query or a trace the processor could not handle; says why."""


class TraceProcessorConfig:
    """How a server is started for a trace.

    bin_path: the `ztrace` program (default: $ZTRACE, else `ztrace` on PATH).
    load_timeout: seconds to wait for the server to import the trace and
        listen before giving up.
    """

    def __init__(self, bin_path=None, load_timeout=120.0):
        self.bin_path = bin_path
        self.load_timeout = load_timeout


def _find_ztrace(config):
    path = config.bin_path or os.environ.get("ZTRACE") or shutil.which("ztrace")
    if not path:
        raise TraceProcessorException(
            "cannot find the ztrace program: put it on PATH, set $ZTRACE, or pass "
            "TraceProcessorConfig(bin_path=...)")
    return path


class _Server:
    """A `ztrace serve` of our own on a free port, stopped by close()."""

    def __init__(self, trace_path, config):
        command = [_find_ztrace(config), "serve", "--port", "0"]
        if trace_path is not None:
            command.append(os.fspath(trace_path))
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        stdin=subprocess.DEVNULL, text=True)
        # stderr is drained all along (a server that logs a lot must not
        # block on a full pipe) and kept for the error of a failed start.
        self._stderr = []
        self._stderr_reader = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_reader.start()
        line = self._read_address_line(config.load_timeout)
        self.address = line.split("http://", 1)[1].strip()

    def _drain_stderr(self):
        try:
            for line in self.process.stderr:
                self._stderr.append(line)
        except ValueError:  # Closed by close().
            pass

    def _read_address_line(self, timeout):
        result = {}

        def read():
            result["line"] = self.process.stdout.readline()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout)
        line = result.get("line", "")
        if line.startswith("Serving on http://"):
            return line
        if reader.is_alive():
            self.close()
            raise TraceProcessorException(
                f"ztrace serve did not start within {timeout:g} s "
                "(TraceProcessorConfig(load_timeout=...) allows more)")
        self.process.wait()
        self._stderr_reader.join(5)
        message = "".join(self._stderr).strip() or f"exit code {self.process.returncode}"
        self.close()
        raise TraceProcessorException(f"ztrace serve failed: {message}")

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            if stream:
                stream.close()


class TraceProcessor:
    """Queries a trace with zerotrace's processor.

    TraceProcessor("trace.pftrace"): starts `ztrace serve` for the trace
        (on a free port; close() or the end of a `with` stops it).
    TraceProcessor(addr="127.0.0.1:9001"): uses a server already running;
        with `trace=` too, sends it the trace (a path or a file object).
    """

    def __init__(self, trace=None, addr=None, config=None):
        self._server = None
        config = config or TraceProcessorConfig()
        is_path = isinstance(trace, (str, bytes, os.PathLike))
        if addr is None:
            self._server = _Server(trace if is_path else None, config)
            addr = self._server.address
        self.addr = addr
        self._connection = http.client.HTTPConnection(addr)
        # A path given to a server of our own was loaded by it already.
        if trace is not None and (self._server is None or not is_path):
            self._send_trace(trace, is_path)

    # -- the protocol ------------------------------------------------------

    def _request(self, method, path, body=None):
        try:
            try:
                self._connection.request(method, path, body=body)
                response = self._connection.getresponse()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                # A kept-alive connection the server had closed (its idle
                # limit): the request never reached it, so it is sent once
                # more on a new connection. Nothing is retried once an
                # answer has begun.
                self._connection.close()
                self._connection = http.client.HTTPConnection(self.addr)
                self._connection.request(method, path, body=body)
                response = self._connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as e:
            self._connection.close()
            raise TraceProcessorException(f"{path}: the connection to {self.addr} failed: {e}") from e
        if response.status != 200:
            raise TraceProcessorException(
                f"{path}: HTTP {response.status}: {data.decode(errors='replace').strip()}")
        return data

    def _send_trace(self, trace, is_path):
        stream = open(trace, "rb") if is_path else trace
        try:
            while True:
                chunk = stream.read(_PARSE_CHUNK_BYTES)
                if not chunk:
                    break
                result = pb.AppendTraceDataResult()
                result.ParseFromString(self._request("POST", "/parse", chunk))
                if result.error:
                    raise TraceProcessorException(f"sending the trace: {result.error}")
        finally:
            if is_path:
                stream.close()
        result = pb.FinalizeDataResult()
        result.ParseFromString(self._request("GET", "/notify_eof"))
        if result.error:
            raise TraceProcessorException(f"importing the trace: {result.error}")

    def status(self):
        """The server's StatusResult (loaded_trace_name, api_version, ...)."""
        result = pb.StatusResult()
        result.ParseFromString(self._request("GET", "/status"))
        return result

    def query(self, sql):
        """Runs `sql` (one or more statements; the last one's rows are
        returned). Raises TraceProcessorException with the processor's
        message when it fails."""
        args = pb.QueryArgs()
        args.sql_query = sql
        result = pb.QueryResult()
        result.ParseFromString(self._request("POST", "/query", args.SerializeToString()))
        if result.error:
            raise TraceProcessorException(result.error)
        return QueryResultIterator(result)

    def restore_initial_tables(self):
        """Drops what queries created (tables, views, modules included)."""
        self._request("GET", "/restore_initial_tables")

    # -- lifetime ------------------------------------------------------------

    def close(self):
        self._connection.close()
        if self._server:
            self._server.close()
            self._server = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown.
            pass

