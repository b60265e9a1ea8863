#!/usr/bin/env python3
"""Records a trace from Python through libzerotrace_c, the C ABI, with ctypes.

A data source "com.example.python" and a track event category "python" are
registered; an in-process session records both while Python writes packets
(a TracePacket with a timestamp and a TestEvent { str, counter }) and
slices with an argument, and the trace is written to a file that
`ztrace stats`, `ztrace report` and Perfetto UI open.

  python3 examples/python/c_abi_record.py --lib out/.../libzerotrace_c.so \\
      --out python.pftrace [--packets 1000] [--slices 500]
  python3 examples/python/c_abi_record.py --lib ... --system   (through ztraced:
      writes once `ztrace record` records both, then waits for the stop)

Any language with a C FFI does the same: the functions and structs are
those of include/zt/c/abi/ (Perfetto's public C ABI, v58.2).
"""
import argparse
import ctypes
import sys
import time

DATA_SOURCE = b"com.example.python"
CATEGORY = b"python"


# Protobuf encoding, enough for a descriptor, a config and a packet.
def varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def varint_field(field_id, value):
    return varint(field_id << 3) + varint(value)


def bytes_field(field_id, data):
    return varint(field_id << 3 | 2) + varint(len(data)) + data


class StreamWriter(ctypes.Structure):
    _fields_ = [("impl", ctypes.c_void_p), ("begin", ctypes.c_void_p),
                ("end", ctypes.c_void_p), ("write_ptr", ctypes.c_void_p),
                ("written_previously", ctypes.c_size_t)]


class TracerIterator(ctypes.Structure):
    _fields_ = [("inst_id", ctypes.c_uint32), ("tls", ctypes.c_void_p),
                ("tracer", ctypes.c_void_p)]


class Timestamp(ctypes.Structure):
    _fields_ = [("clock_id", ctypes.c_uint32), ("value", ctypes.c_uint64)]


class CategoryDescriptor(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("desc", ctypes.c_char_p),
                ("tags", ctypes.c_void_p), ("num_tags", ctypes.c_size_t)]


class ExtraIntArg(ctypes.Structure):  # PerfettoTeHlExtraDebugArgInt64
    _fields_ = [("type", ctypes.c_uint32), ("name", ctypes.c_char_p), ("value", ctypes.c_int64)]


EXTRA_TYPE_DEBUG_ARG_INT64 = 9
TE_TYPE_SLICE_BEGIN, TE_TYPE_SLICE_END = 1, 2

READ_CB = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                           ctypes.c_bool, ctypes.c_void_p)


def load(path):
    lib = ctypes.CDLL(path)
    sigs = {
        "PerfettoProducerInProcessInit": (None, [ctypes.c_void_p]),
        "PerfettoProducerSystemInit": (None, [ctypes.c_void_p]),
        "PerfettoDsImplCreate": (ctypes.c_void_p, []),
        "PerfettoDsImplRegister": (ctypes.c_bool, [ctypes.c_void_p,
                                                   ctypes.POINTER(ctypes.POINTER(ctypes.c_bool)),
                                                   ctypes.c_char_p, ctypes.c_size_t]),
        "PerfettoDsImplTraceIterateBegin": (TracerIterator, [ctypes.c_void_p]),
        "PerfettoDsImplTraceIterateNext": (None, [ctypes.c_void_p,
                                                  ctypes.POINTER(TracerIterator)]),
        "PerfettoDsTracerImplPacketBegin": (StreamWriter, [ctypes.c_void_p]),
        "PerfettoDsTracerImplPacketEnd": (None, [ctypes.c_void_p, ctypes.POINTER(StreamWriter)]),
        "PerfettoStreamWriterAppendBytesSlowpath": (None, [ctypes.POINTER(StreamWriter),
                                                           ctypes.c_char_p, ctypes.c_size_t]),
        "PerfettoDsGetTimestamp": (Timestamp, []),
        "PerfettoTracingSessionInProcessCreate": (ctypes.c_void_p, []),
        "PerfettoTracingSessionSetup": (None, [ctypes.c_void_p, ctypes.c_char_p,
                                               ctypes.c_size_t]),
        "PerfettoTracingSessionStartBlocking": (None, [ctypes.c_void_p]),
        "PerfettoTracingSessionStopBlocking": (None, [ctypes.c_void_p]),
        "PerfettoTracingSessionReadTraceBlocking": (None, [ctypes.c_void_p, READ_CB,
                                                           ctypes.c_void_p]),
        "PerfettoTracingSessionDestroy": (None, [ctypes.c_void_p]),
        "PerfettoTeInit": (None, []),
        "PerfettoTeCategoryImplCreate": (ctypes.c_void_p, [ctypes.POINTER(CategoryDescriptor)]),
        "PerfettoTeCategoryImplGetEnabled": (ctypes.POINTER(ctypes.c_bool), [ctypes.c_void_p]),
        "PerfettoTeHlEmitImpl": (None, [ctypes.c_void_p, ctypes.c_int32, ctypes.c_char_p,
                                        ctypes.POINTER(ctypes.c_void_p)]),
    }
    for name, (restype, argtypes) in sigs.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


def count_packets(trace, field_id):
    """Packets of a Trace holding field `field_id` (top level)."""
    def read_varint(data, i):
        value, shift = 0, 0
        while True:
            byte = data[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value, i

    def fields(data):
        i = 0
        while i < len(data):
            tag, i = read_varint(data, i)
            wire = tag & 7
            if wire == 0:
                value, i = read_varint(data, i)
            elif wire == 2:
                size, i = read_varint(data, i)
                value, i = data[i:i + size], i + size
            elif wire == 1:
                value, i = data[i:i + 8], i + 8
            elif wire == 5:
                value, i = data[i:i + 4], i + 4
            else:
                raise ValueError("wire type %d" % wire)
            yield tag >> 3, value

    return sum(1 for fid, packet in fields(trace) if fid == 1
               and any(f == field_id for f, _ in fields(packet)))


def write_packets(lib, ds, enabled, count):
    for counter in range(count):
        if not enabled.contents.value:  # The fast check C code makes inline.
            continue
        it = lib.PerfettoDsImplTraceIterateBegin(ds)
        while it.tracer:
            now = lib.PerfettoDsGetTimestamp()
            event = bytes_field(1, b"python packet") + varint_field(3, counter)
            packet = (varint_field(8, now.value) + varint_field(58, now.clock_id) +
                      bytes_field(900, event))  # timestamp, its clock, for_testing
            writer = lib.PerfettoDsTracerImplPacketBegin(it.tracer)
            lib.PerfettoStreamWriterAppendBytesSlowpath(ctypes.byref(writer), packet, len(packet))
            lib.PerfettoDsTracerImplPacketEnd(it.tracer, ctypes.byref(writer))
            lib.PerfettoDsImplTraceIterateNext(ds, ctypes.byref(it))


def write_slices(lib, category, category_on, count):
    # The extras are a NULL-terminated array of pointers to structs that
    # begin with their type.
    no_extras = (ctypes.c_void_p * 1)(None)
    for i in range(count):
        if not category_on.contents.value:
            continue
        arg = ExtraIntArg(EXTRA_TYPE_DEBUG_ARG_INT64, b"i", i)
        extras = (ctypes.c_void_p * 2)(ctypes.cast(ctypes.pointer(arg), ctypes.c_void_p), None)
        lib.PerfettoTeHlEmitImpl(category, TE_TYPE_SLICE_BEGIN, b"python slice", extras)
        lib.PerfettoTeHlEmitImpl(category, TE_TYPE_SLICE_END, None, no_extras)


def wait_until(condition, seconds=60):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lib", required=True, help="path to libzerotrace_c.so")
    parser.add_argument("--out", help="the trace file to write (in-process)")
    parser.add_argument("--system", action="store_true",
                        help="connect to ztraced instead; write once a session records both")
    parser.add_argument("--packets", type=int, default=1000)
    parser.add_argument("--slices", type=int, default=500)
    args = parser.parse_args()
    if not args.system and not args.out:
        parser.error("--out is needed, unless --system")
    try:
        lib = load(args.lib)
    except OSError as e:
        sys.exit("cannot load %s: %s" % (args.lib, e))

    if args.system:
        lib.PerfettoProducerSystemInit(None)
    else:
        lib.PerfettoProducerInProcessInit(None)
    ds = lib.PerfettoDsImplCreate()
    enabled = ctypes.POINTER(ctypes.c_bool)()
    descriptor = bytes_field(1, DATA_SOURCE)  # DataSourceDescriptor.name
    if not lib.PerfettoDsImplRegister(ds, ctypes.byref(enabled), descriptor, len(descriptor)):
        sys.exit("could not register %s" % DATA_SOURCE.decode())

    # Track events: the category (its descriptor must outlive it), then the
    # track event data source, which lists it.
    category_desc = CategoryDescriptor(CATEGORY, b"Slices from Python", None, 0)
    category = lib.PerfettoTeCategoryImplCreate(ctypes.byref(category_desc))
    category_on = lib.PerfettoTeCategoryImplGetEnabled(category)
    lib.PerfettoTeInit()

    if args.system:
        # ztrace record (or Perfetto's perfetto) starts the session.
        print("registered", flush=True)
        if not wait_until(lambda: enabled.contents.value and category_on.contents.value):
            sys.exit("no session recorded %s and the %s category within a minute" %
                     (DATA_SOURCE.decode(), CATEGORY.decode()))
        write_packets(lib, ds, enabled, args.packets)
        write_slices(lib, category, category_on, args.slices)
        print("done", flush=True)
        if not wait_until(lambda: not enabled.contents.value):
            sys.exit("the session did not stop within a minute")
        return

    # TraceConfig { buffers { size_kb: 4096 }
    #   data_sources { config { name: DATA_SOURCE } }
    #   data_sources { config { name: "track_event"
    #                           track_event_config { enabled_categories: CATEGORY } } } }
    config = (bytes_field(1, varint_field(1, 4096)) +
              bytes_field(2, bytes_field(1, bytes_field(1, DATA_SOURCE))) +
              bytes_field(2, bytes_field(1, bytes_field(1, b"track_event") +
                                         bytes_field(113, bytes_field(2, CATEGORY)))))
    session = lib.PerfettoTracingSessionInProcessCreate()
    lib.PerfettoTracingSessionSetup(session, config, len(config))
    lib.PerfettoTracingSessionStartBlocking(session)
    write_packets(lib, ds, enabled, args.packets)
    write_slices(lib, category, category_on, args.slices)
    lib.PerfettoTracingSessionStopBlocking(session)
    pieces = []

    def on_data(_session, data, size, _has_more, _arg):
        pieces.append(ctypes.string_at(data, size) if size else b"")

    callback = READ_CB(on_data)
    lib.PerfettoTracingSessionReadTraceBlocking(session, callback, None)
    lib.PerfettoTracingSessionDestroy(session)
    trace = b"".join(pieces)
    with open(args.out, "wb") as f:
        f.write(trace)
    print("wrote %s (%d bytes): %d packets of %s, %d track events of category %s" %
          (args.out, len(trace), count_packets(trace, 900), DATA_SOURCE.decode(),
           count_packets(trace, 11), CATEGORY.decode()))


if __name__ == "__main__":
    main()
