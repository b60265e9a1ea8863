"""`ztrace serve`'s websocket RPC stream as Perfetto UI uses it: the trace
sent in pieces, its end, pipelined queries, request numbering, and the
fatal errors that end a stream."""

import unittest

from rpc_channel import RpcChannel, frame
from serve_harness import SMALL_TRACE, Server, pb
from ws_client import HandshakeRefused, WebSocket

Rpc = pb.TraceProcessorRpc


def trace_bytes():
    with open(SMALL_TRACE, "rb") as f:
        return f.read()


class WebsocketTest(unittest.TestCase):
    def setUp(self):
        self.server = None

    def tearDown(self):
        if self.server:
            self.assertEqual(self.server.stop(), 0)

    def start(self, trace=None):
        self.server = Server(trace)
        self.ws = WebSocket(self.server.port)
        self.addCleanup(self.ws.close)
        return RpcChannel(self.ws)

    def test_the_uis_load_then_pipelined_queries(self):
        rpc = self.start()
        rpc.send(Rpc.TPM_GET_STATUS)
        status = rpc.read()
        self.assertEqual(status.seq, 0)
        self.assertEqual(status.response, Rpc.TPM_GET_STATUS)
        self.assertEqual(status.status.loaded_trace_name, "")
        self.assertEqual(status.status.api_version, 14)

        data = trace_bytes()
        third = len(data) // 3
        pieces = [data[:third], data[third:2 * third], data[2 * third:]]
        for piece in pieces[:2]:
            rpc.send(Rpc.TPM_APPEND_TRACE_DATA, append_trace_data=piece)
        # The last piece's request cut across three websocket messages.
        last = rpc.request(Rpc.TPM_APPEND_TRACE_DATA, append_trace_data=pieces[2])
        for start in range(0, len(last), len(last) // 3 + 1):
            self.ws.send(last[start:start + len(last) // 3 + 1])
        for _ in pieces:
            answer = rpc.read()
            self.assertEqual(answer.response, Rpc.TPM_APPEND_TRACE_DATA)
            self.assertFalse(answer.append_result.error)
        rpc.send(Rpc.TPM_FINALIZE_TRACE_DATA)
        finalized = rpc.read()
        self.assertEqual(finalized.response, Rpc.TPM_FINALIZE_TRACE_DATA)
        self.assertFalse(finalized.finalize_data_result.error)

        # Three queries in one websocket message: answered in order, each
        # query's messages together, numbered one after another.
        self.ws.send(rpc.request(Rpc.TPM_QUERY_STREAMING, query="select count(*) as n from slice") +
                     rpc.request(Rpc.TPM_QUERY_STREAMING, query="select * from nonexistent_table") +
                     rpc.request(Rpc.TPM_QUERY_STREAMING,
                                 query="select start_ts, end_ts from trace_bounds"))
        count, first = rpc.read_query()
        error, _ = rpc.read_query()
        bounds, last = rpc.read_query()
        self.assertEqual(list(count.column_names), ["n"])
        self.assertEqual(count.batch[-1].varint_cells[0], 495)
        self.assertIn("nonexistent_table", error.error)
        self.assertEqual(list(bounds.column_names), ["start_ts", "end_ts"])
        self.assertLess(bounds.batch[0].varint_cells[0], bounds.batch[0].varint_cells[1])
        self.assertEqual(last[-1].seq, first[0].seq + 2)

        rpc.send(Rpc.TPM_GET_STATUS)
        self.assertEqual(rpc.read().status.loaded_trace_name, "Unnamed trace (0 MB)")

    def test_a_preloaded_trace_after_restoring_the_initial_tables(self):
        rpc = self.start(SMALL_TRACE)
        rpc.send(Rpc.TPM_GET_STATUS)
        self.assertIn("inprocess_small.pftrace", rpc.read().status.loaded_trace_name)
        rpc.send(Rpc.TPM_RESTORE_INITIAL_TABLES)
        self.assertEqual(rpc.read().response, Rpc.TPM_RESTORE_INITIAL_TABLES)
        result, _ = rpc.query("select name from slice order by dur desc limit 1")
        self.assertEqual(result.batch[-1].string_cells, "Outer\0")

    def test_what_the_ui_asks_first_when_it_opens_a_trace(self):
        # Perfetto UI, on a preloaded trace: the initial tables back, then
        # its first queries pipelined (our own SQL over the names it reads:
        # it stops opening the trace at the first error).
        rpc = self.start(SMALL_TRACE)
        rpc.send(Rpc.TPM_RESTORE_INITIAL_TABLES)
        rpc.read()
        queries = [
            "select start_ts, end_ts from trace_bounds",
            "select ts, clock_value, clock_name from clock_snapshot where snapshot_id = 0",
            "select max(int_value) as tz from metadata where name = 'timezone_off_mins'",
            "include perfetto module std.traceinfo.trace; "
            "select distinct trace_type from _metadata_by_trace",
            "select count(*) from ftrace_event",
            "include perfetto module std.traceinfo.trace; "
            "select coalesce(trace_uuid, extract_metadata('trace_uuid'), "
            "trace_id || '-' || trace_type) as uuid from _metadata_by_trace",
            "select sum(value) as errors from stats where severity in ('error', 'data_loss')",
            "select machine_id, trace_id, max(int_value) from metadata group by 1, 2",
            "select min(ts), max(ts) from ftrace_event",
            "include perfetto module viz.summary.slices",
            "include perfetto module viz.summary.counters",
            "include perfetto module viz.summary.threads",
            "include perfetto module viz.summary.processes",
            "create perfetto function zt_depth_of(ids STRING) returns INT as "
            "select max(layout_depth) from experimental_slice_layout($ids); "
            "select max(max_depth) as d from _slice_track_summary",
            # Its plugins: the thread list, the track-event track tree, and
            # tables of data we do not import (there, empty).
            "include perfetto module viz.threads; "
            "select count(*) from _threads_with_kernel_flag",
            "include perfetto module viz.summary.track_event; "
            "select count(*) from _track_event_tracks_ordered_groups",
            "select count(*) from sched join cpu using (ucpu)",
            "select string_agg(package_name, ',') from package_list",
        ]
        self.ws.send(b"".join(rpc.request(Rpc.TPM_QUERY_STREAMING, query=q) for q in queries))
        results = [rpc.read_query()[0] for _ in queries]
        for sql, result in zip(queries, results):
            self.assertEqual(result.error, "", sql)
        # Read as the UI reads them: integers (never doubles) where it
        # expects LONG, and a sum of errors that is not NULL.
        self.assertEqual(list(results[0].batch[0].cells), [2, 2])
        self.assertEqual(list(results[3].batch[0].cells), [4])
        self.assertEqual(results[3].batch[0].string_cells, "proto\0")
        self.assertEqual(list(results[6].batch[0].cells), [2])
        self.assertEqual(list(results[13].batch[0].cells), [2])

    def test_what_the_ui_asks_on_its_pages_and_for_a_slice(self):
        # Found by running Perfetto UI v58.2 itself against ztrace serve
        # (docs/design/serve.md): its GPU plugin, its heap-profile plugin,
        # its overview page and a click on a thread slice. Our own SQL over
        # the names it reads, and the types it checks.
        rpc = self.start(SMALL_TRACE)
        queries = [
            "select group_id, name, track_id from gpu_counter_group where name is not null",
            "select value from stats where name = 'heap_graph_non_finalized_graph'",
            "select name, value, idx, description, severity, source, machine_id, trace_id "
            "from stats order by trace_id, machine_id, name, idx",
            "include perfetto module std.traceinfo.trace; "
            "select trace_id, trace_type, machines from _metadata_by_trace",
            "select package_name, uid, current_mode from android_game_intervention_list",
            "include perfetto module android.aflags; "
            "select package, name, value from android_aflags order by package, name",
            "select ts, severity, name, __intrinsic_arg_set_to_json(arg_set_id) as args, "
            "trace_id from _trace_import_logs where severity = 'error'",
            "include perfetto module sched.time_in_state; include perfetto module sched.states; "
            "include perfetto module android.cpu.cluster_type; "
            "select sched_state_io_to_human_readable_string(state, io_wait) as s, "
            "cluster_type, dur "
            "from sched_time_in_state_and_cpu_for_thread_in_interval(0, 100, 1) "
            "left join android_cpu_cluster_mapping using (cpu)",
            "include perfetto module sched.states; "
            "select sched_state_io_to_human_readable_string('D', 1)",
            "select __intrinsic_arg_set_to_json(arg_set_id) from slice "
            "where arg_set_id is not null order by id limit 1",
            # The slice's callstack (none here) walked by _graph_scan!, and
            # the histogram's percentiles.
            "include perfetto module callstacks.stack_profile; "
            "with cs as materialized (select id, parent_id, name "
            "from _callstacks_for_stack_profile_samples!((select callsite_id "
            "from __intrinsic_track_event_callstacks where slice_id = 0))) "
            "select name from _graph_scan!((select parent_id as source_node_id, "
            "id as dest_node_id from cs where parent_id is not null), "
            "(select id, 0 as depth from cs where parent_id is null), (depth), "
            "(select t.id, t.depth + 1 as depth from $table t)) s join cs using (id)",
            "select count(*), percentile(dur, 50) >= 0, percentile(dur, 99.9) >= 0 "
            "from slice where dur >= 0",
        ]
        self.ws.send(b"".join(rpc.request(Rpc.TPM_QUERY_STREAMING, query=q) for q in queries))
        results = [rpc.read_query()[0] for _ in queries]
        for sql, result in zip(queries, results):
            self.assertEqual(result.error, "", sql)
        # The UI asserts that this stat has a row.
        self.assertEqual(list(results[1].batch[0].varint_cells), [0])
        # machines is a string (the UI refuses an integer there).
        cells = results[3].batch[0].cells
        self.assertEqual(cells[2], pb.QueryResult.CellsBatch.CELL_STRING)
        self.assertEqual(results[3].batch[0].string_cells, "proto\0\0")
        self.assertEqual(results[8].batch[0].string_cells, "Uninterruptible Sleep (IO)\0")
        self.assertTrue(results[9].batch[0].string_cells.startswith("{"))
        self.assertEqual(list(results[11].batch[0].varint_cells)[1:], [1, 1])

    def test_a_large_result_streams_in_batches(self):
        rpc = self.start(SMALL_TRACE)
        result, messages = rpc.query(
            "with recursive n(i) as (select 1 union all select i + 1 from n where i < 200000) "
            "select i, i * 0.5 as half, 'row' as s, null as z from n")
        self.assertGreater(len(messages), 4)
        self.assertEqual(sum(len(b.cells) for b in result.batch), 800000)
        self.assertEqual(list(result.column_names), ["i", "half", "s", "z"])
        # Names on the first message only.
        self.assertTrue(all(not m.query_result.column_names for m in messages[1:]))
        seqs = [m.seq for m in messages]
        self.assertEqual(seqs, list(range(seqs[0], seqs[0] + len(seqs))))

    def test_a_request_out_of_order_ends_the_stream(self):
        rpc = self.start(SMALL_TRACE)
        # (After a request numbered 0 any number goes, as upstream has it:
        # a client may start from 0 again.)
        for _ in range(2):
            rpc.send(Rpc.TPM_GET_STATUS)
            rpc.read()
        rpc.next_seq = 7
        rpc.send(Rpc.TPM_GET_STATUS)
        fatal = rpc.read()
        self.assertIn("(ERR:rpc_seq)", fatal.fatal_error)
        self.assertIsNone(rpc.read())  # Closed.

    def test_bytes_that_are_no_stream_end_it(self):
        rpc = self.start(SMALL_TRACE)
        self.ws.send(b"\x08\x01")  # A varint where a message must be.
        fatal = rpc.read()
        self.assertTrue(fatal.fatal_error)
        self.assertIsNone(rpc.read())
        # The server is still there for others.
        other = RpcChannel(WebSocket(self.server.port))
        other.send(Rpc.TPM_GET_STATUS)
        self.assertEqual(other.read().status.api_version, 14)
        other.ws.close()

    def test_only_the_uis_pages_may_open_it(self):
        self.server = Server(SMALL_TRACE)
        for origin in ("https://evil.example", None):
            with self.assertRaises(HandshakeRefused) as refused:
                WebSocket(self.server.port, origin=origin)
            self.assertIn(" 403 ", refused.exception.status_line)
        with self.assertRaises(HandshakeRefused) as rebound:
            WebSocket(self.server.port, host=f"evil.example:{self.server.port}")
        self.assertIn(" 403 ", rebound.exception.status_line)
        # An added origin may.
        self.server.stop()
        self.server = Server(SMALL_TRACE, ["--additional-cors-origins", "http://localhost:8080"])
        WebSocket(self.server.port, origin="http://localhost:8080").close()

    def test_the_session_seq_is_shared_and_never_reset(self):
        rpc = self.start(SMALL_TRACE)
        rpc.send(Rpc.TPM_GET_STATUS)
        first = rpc.read().seq
        # A second connection continues the server's numbering.
        other = RpcChannel(WebSocket(self.server.port))
        other.send(Rpc.TPM_GET_STATUS)
        self.assertEqual(other.read().seq, first + 1)
        other.ws.close()

    def test_an_oversized_message_is_refused(self):
        rpc = self.start(SMALL_TRACE)
        # A frame header announcing 65 MiB: over the limit, the connection ends.
        import struct
        self.ws.sock.sendall(bytes([0x82, 0x80 | 127]) + struct.pack(">Q", 65 << 20) + b"\0\0\0\0")
        self.assertIsNone(rpc.read())


if __name__ == "__main__":
    unittest.main()
