"""`ztrace serve`'s HTTP endpoints as upstream's Python API uses them
(/status, /parse in 1 MiB pieces, /notify_eof, /query, ...), our own
package over them, browser-origin checks, cancelled and concurrent
clients, and what a bad command line or request gets."""

import os
import socket
import subprocess
import threading
import time
import unittest

from serve_harness import (SMALL_TRACE, TIMEOUT, ZTRACE, Server, pb, query_args, raw_exchange,
                           request, rows_of)

import zerotrace

ENDLESS = ("with recursive n(i) as (select 1 union all select i + 1 from n) "
           "select count(*) from n")


class HttpProtocolTest(unittest.TestCase):
    def setUp(self):
        self.server = None

    def tearDown(self):
        if self.server:
            self.assertEqual(self.server.stop(), 0)

    def query(self, conn, sql):
        status, body, headers = request(conn, "POST", "/query", query_args(sql))
        self.assertEqual(status, 200)
        result = pb.QueryResult()
        result.ParseFromString(body)
        return result

    def test_the_python_apis_sequence(self):
        self.server = Server()
        conn = self.server.connection()  # One keep-alive connection throughout.
        status, body, _ = request(conn, "GET", "/status")
        self.assertEqual(status, 200)
        result = pb.StatusResult()
        result.ParseFromString(body)
        self.assertEqual(result.loaded_trace_name, "")
        self.assertEqual(result.api_version, 14)

        with open(SMALL_TRACE, "rb") as f:
            data = f.read()
        sent = 0
        for start in range(0, len(data), 16384):
            status, body, _ = request(conn, "POST", "/parse", data[start:start + 16384])
            self.assertEqual(status, 200)
            append = pb.AppendTraceDataResult()
            append.ParseFromString(body)
            self.assertFalse(append.error)
            sent += len(data[start:start + 16384])
            self.assertEqual(append.total_bytes_parsed, sent)
        status, body, _ = request(conn, "GET", "/notify_eof")
        self.assertEqual(status, 200)

        result = self.query(conn, "select name, count(*) as c from slice group by name "
                                  "order by c desc, name limit 2")
        self.assertEqual(result.error, "")
        self.assertEqual(list(result.column_names), ["name", "c"])
        self.assertEqual(rows_of(result), [["ArgsA", 45], ["ArgsB", 45]])

        # Every cell type.
        result = self.query(conn, "select 1 as i, 2.5 as r, 'text' as s, null as n, x'00ff' as b")
        self.assertEqual(rows_of(result), [[1, 2.5, "text", None, b"\x00\xff"]])

        # An error is the result's, not the HTTP status's.
        self.assertIn("no such table", self.query(conn, "select * from nope").error)

        # Tables a query made are gone after a restore.
        self.query(conn, "create table mine as select 1")
        self.assertEqual(request(conn, "GET", "/restore_initial_tables")[0], 200)
        self.assertIn("no such table", self.query(conn, "select * from mine").error)

        # Methods this processor lacks say so in their result.
        status, body, _ = request(conn, "POST", "/compute_metric", b"")
        metric = pb.ComputeMetricResult()
        metric.ParseFromString(body)
        self.assertEqual(status, 200)
        self.assertIn("not supported", metric.error)
        self.assertEqual(request(conn, "GET", "/nothing")[0], 404)

        status, body, _ = request(conn, "GET", "/status")
        result = pb.StatusResult()
        result.ParseFromString(body)
        self.assertEqual(result.loaded_trace_name, "Unnamed trace (0 MB)")

    def test_browsers_from_other_pages_are_refused(self):
        self.server = Server(SMALL_TRACE)
        conn = self.server.connection()
        status, body, headers = request(conn, "GET", "/status",
                                        headers={"Origin": "https://evil.example"})
        self.assertEqual(status, 403)
        self.assertNotIn("access-control-allow-origin", headers)
        conn = self.server.connection()
        status, _, headers = request(conn, "OPTIONS", "/query",
                                     headers={"Origin": "https://ui.perfetto.dev"})
        self.assertEqual(status, 204)
        self.assertEqual(headers["access-control-allow-origin"], "https://ui.perfetto.dev")
        self.assertEqual(headers["access-control-allow-private-network"], "true")
        status, _, headers = request(conn, "POST", "/query", query_args("select 1"),
                                     headers={"Origin": "http://localhost:10000"})
        self.assertEqual(status, 200)
        self.assertEqual(headers["access-control-allow-origin"], "http://localhost:10000")
        # DNS rebinding: the page's own name in Host.
        reply = raw_exchange(self.server.port,
                             f"GET /status HTTP/1.1\r\nHost: evil.example:{self.server.port}\r\n\r\n".encode())
        self.assertTrue(reply.startswith(b"HTTP/1.1 403"), reply[:80])

    def test_malformed_requests_get_an_error_and_nothing_else_breaks(self):
        self.server = Server(SMALL_TRACE)
        for data, expected in [
            (b"\x00\x01garbage\r\n\r\n", b"HTTP/1.1 400"),
            (b"GET /status HTTP/1.1\r\nX: " + b"y" * 70000 + b"\r\n\r\n", b"HTTP/1.1 431"),
            (b"POST /parse HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n", b"HTTP/1.1 413"),
        ]:
            reply = raw_exchange(self.server.port, data)
            self.assertTrue(reply.startswith(expected), (data[:30], reply[:80]))
        # A /query body that is no QueryArgs: an error in the result.
        conn = self.server.connection()
        status, body, _ = request(conn, "POST", "/query", b"\xff\xff\xff")
        result = pb.QueryResult()
        result.ParseFromString(body)
        self.assertTrue(result.error)
        self.assertEqual(rows_of(self.query(conn, "select 5")), [[5]])

    def test_sql_reads_the_trace_and_no_other_file(self):
        self.server = Server(SMALL_TRACE)
        conn = self.server.connection()
        path = f"/tmp/zt_serve_attach_{os.getpid()}.db"
        self.assertIn("not authorized", self.query(conn, f"ATTACH DATABASE '{path}' AS w").error)
        self.assertTrue(self.query(conn, f"VACUUM INTO '{path}'").error)
        self.assertFalse(os.path.exists(path), "a file was written")
        self.assertEqual(rows_of(self.query(conn, "select count(*) from slice")), [[495]])

    def test_a_client_that_half_closes_still_gets_its_answer(self):
        self.server = Server(SMALL_TRACE)
        body = query_args("with recursive n(i) as (select 1 union all select i + 1 from n "
                          "where i < 3000000) select count(*) from n")
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=TIMEOUT) as s:
            s.sendall(b"POST /query HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n"
                      b"Content-Length: %d\r\n\r\n" % (self.server.port, len(body)) + body)
            s.shutdown(socket.SHUT_WR)
            reply = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                reply += chunk
        self.assertTrue(reply.startswith(b"HTTP/1.1 200"), reply[:80])
        self.assertTrue(reply.endswith(b"\r\n0\r\n\r\n"), reply[-40:])

    def test_a_string_that_is_not_utf8_is_no_error(self):
        with zerotrace.TraceProcessor(SMALL_TRACE) as tp:
            rows = list(tp.query("SELECT CAST(x'41ff42' AS TEXT) AS s, 'ok' AS t"))
        self.assertEqual(rows[0].s, "A\ufffdB")
        self.assertEqual(rows[0].t, "ok")

    def test_a_client_that_hangs_up_mid_query_frees_the_server(self):
        self.server = Server(SMALL_TRACE)
        s = socket.create_connection(("127.0.0.1", self.server.port), timeout=TIMEOUT)
        body = query_args(ENDLESS)
        s.sendall(b"POST /query HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Length: %d\r\n\r\n"
                  % (self.server.port, len(body)) + body)
        time.sleep(0.2)  # Not for synchronisation: the query may or may not have begun.
        s.close()
        start = time.monotonic()
        self.assertEqual(rows_of(self.query(self.server.connection(), "select 6")), [[6]])
        self.assertLess(time.monotonic() - start, TIMEOUT)

    def test_concurrent_clients_each_get_their_own_answers(self):
        self.server = Server(SMALL_TRACE)
        failures = []

        def client(k):
            try:
                conn = self.server.connection()
                for i in range(20):
                    result = self.query(conn, f"select {k} * 1000 + {i} as v, count(*) from slice")
                    if rows_of(result) != [[k * 1000 + i, 495]]:
                        failures.append((k, i, rows_of(result)))
            except Exception as e:  # noqa: BLE001 - reported below.
                failures.append((k, repr(e)))

        threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(TIMEOUT)
        self.assertEqual(failures, [])


class CommandLineTest(unittest.TestCase):
    def run_ztrace(self, *args):
        return subprocess.run([ZTRACE, "serve", *args], capture_output=True, text=True,
                              timeout=TIMEOUT, stdin=subprocess.DEVNULL)

    def test_bad_usage_and_bad_input_say_why(self):
        r = self.run_ztrace("--port", "http")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--port needs a port number", r.stderr)
        r = self.run_ztrace("/nonexistent/trace.pftrace")
        self.assertEqual(r.returncode, 1)
        self.assertIn("/nonexistent/trace.pftrace", r.stderr)
        r = self.run_ztrace("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("TraceProcessor(addr=", r.stdout)

    def test_a_stop_as_soon_as_the_address_is_printed_is_clean(self):
        # A script that waits for "Serving on" and then sends SIGTERM: the
        # handler must be there already (it was not, 60 times in 100).
        for _ in range(20):
            server = Server()
            self.assertEqual(server.stop(), 0, "".join(server.stderr))

    def test_a_port_in_use_is_named(self):
        server = Server(SMALL_TRACE)
        try:
            r = self.run_ztrace("--port", str(server.port))
            self.assertEqual(r.returncode, 1)
            self.assertIn(f"cannot listen on 127.0.0.1:{server.port}", r.stderr)
            self.assertIn("in use", r.stderr)
        finally:
            self.assertEqual(server.stop(), 0)


class PackageTest(unittest.TestCase):
    """python/zerotrace: upstream's surface over a server of its own."""

    def test_query_rows_and_errors(self):
        with zerotrace.TraceProcessor(SMALL_TRACE) as tp:
            rows = list(tp.query("select name, dur from slice order by dur desc limit 2"))
            self.assertEqual([r.name for r in rows], ["Outer", "WorkerSlice"])
            self.assertEqual(rows[0].dur, 337585)
            with self.assertRaises(AttributeError):
                rows[0].nope
            with self.assertRaises(zerotrace.TraceProcessorException) as e:
                tp.query("select * from nope")
            self.assertIn("no such table: nope", str(e.exception))
            self.assertIn("inprocess_small", tp.status().loaded_trace_name)

    def test_pandas(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("pandas is not installed")
        with zerotrace.TraceProcessor(SMALL_TRACE) as tp:
            frame = tp.query("select id, name, dur from slice order by id limit 3").as_pandas_dataframe()
            self.assertEqual(list(frame.columns), ["id", "name", "dur"])
            self.assertEqual(list(frame["id"]), [0, 1, 2])
            self.assertEqual(len(tp.query("select * from slice where 0").as_pandas_dataframe()), 0)

    def test_a_trace_sent_to_a_running_server(self):
        server = Server()
        try:
            with open(SMALL_TRACE, "rb") as f:
                tp = zerotrace.TraceProcessor(trace=f, addr=f"127.0.0.1:{server.port}")
            self.assertEqual(len(tp.query("select * from slice")), 495)
            tp.close()
        finally:
            self.assertEqual(server.stop(), 0)

    def test_a_bad_trace_is_a_clear_error(self):
        with self.assertRaises(zerotrace.TraceProcessorException) as e:
            zerotrace.TraceProcessor("/nonexistent/x.pftrace")
        self.assertIn("/nonexistent/x.pftrace", str(e.exception))
        missing = zerotrace.TraceProcessorConfig(bin_path="/nonexistent/ztrace")
        with self.assertRaises((zerotrace.TraceProcessorException, OSError)):
            zerotrace.TraceProcessor(SMALL_TRACE, config=missing)


if __name__ == "__main__":
    unittest.main()
