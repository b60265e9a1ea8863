// The TraceConfig of `ztrace record`, from one of the two places upstream's
// `perfetto` command takes it:
//  * a config file (-c FILE, "-" for stdin): an encoded TraceConfig, or its
//    text format with --txt (the .pbtxt files written for `perfetto --txt`);
//  * the shorthand flags (-t DURATION -b SIZE [-s SIZE] [category ...]).
//
// Upstream's shorthand records ftrace events and atrace categories (and adds
// linux.process_stats and linux.system_info); zerotrace has no kernel data
// sources, so its categories are track_event categories instead. Otherwise
// the shorthand builds what upstream's does: one ring buffer, duration_ms,
// flush_period_ms of 30 s, and with -s the trace streamed into the file
// (write_into_file) up to max_file_size_bytes.
//
// Pure functions of their arguments (LoadConfigFile reads the file named):
// no output, no exit; each failure comes back as a one-line message that the
// caller prints after "ztrace: ". Thread-safe.

#ifndef ZT_SRC_CMD_ZTRACE_RECORD_CONFIG_H_
#define ZT_SRC_CMD_ZTRACE_RECORD_CONFIG_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/cmd/ztrace/exit_codes.h"
#include "zt/config/trace_config.gen.h"

namespace zt {
namespace ztrace {

// Defaults of the shorthand, as upstream's.
inline constexpr char kDefaultDuration[] = "10s";
inline constexpr char kDefaultBufferSize[] = "32mb";
// How often a shorthand session asks its producers to commit, so that a long
// ring-buffer trace does not hold minutes of data in producers' memory.
inline constexpr uint32_t kShorthandFlushPeriodMs = 30000;
// How often a shorthand session asks data sources to write their
// incremental state (interned names, track descriptors) again: once the ring
// buffer wraps, the packets after the overwritten state are readable again
// from the next clear on. Not upstream's default (it sets none); the cost is
// re-interning once per period per thread.
inline constexpr uint32_t kShorthandClearPeriodMs = 5000;

// "500ms", "10s", "2m", "1h" (units case-insensitive) -> milliseconds; "0"
// (no unit) is 0. False (and |*error| says why) for anything else,
// including a number without unit and a value over UINT32_MAX ms (the
// config's duration is 32-bit: about 49 days).
bool ParseDurationMs(std::string_view text, uint32_t* ms, std::string* error);

// "512kb", "32mb", "1gb" (also "k", "m", "g"; case-insensitive) -> KiB; "0"
// is 0. False (and |*error| says why) otherwise, including a value over
// UINT32_MAX KiB.
bool ParseSizeKb(std::string_view text, uint32_t* kb, std::string* error);

struct ShorthandOptions {
  std::string duration = kDefaultDuration;  // -t; "0": until stopped.
  std::string buffer_size = kDefaultBufferSize;  // -b; must be > 0.
  std::string max_file_size;  // -s; empty: read the buffer at the end.
  // track_event categories; empty: track_event's defaults (every category
  // not tagged slow or debug).
  std::vector<std::string> categories;
};

// The config the shorthand stands for: one RING_BUFFER buffer of
// |buffer_size|, |duration|, flush_period_ms 30 s, and a "track_event" data
// source. With categories, its track_event_config enables exactly those
// (enabled_categories) and disables every other ("*" in
// disabled_categories: an enabled match wins). With |max_file_size|,
// write_into_file and max_file_size_bytes. False with |*error| (naming the
// flag) on a bad value.
bool BuildShorthandConfig(const ShorthandOptions& options,
                          protos::gen::TraceConfig* config, std::string* error);

// |bytes| (read from |file_name|, used in messages) as a TraceConfig: text
// format if |text|, else the encoded message. A text error reads
// "FILE:LINE:COL: message"; undecodable binary input that looks like text
// says to add --txt.
bool ParseConfig(std::string_view bytes, bool text, const std::string& file_name,
                 protos::gen::TraceConfig* config, std::string* error);

// Reads |path| ("-": standard input, named "<stdin>" in messages) and
// parses it as ParseConfig does.
bool LoadConfigFile(const std::string& path, bool text,
                    protos::gen::TraceConfig* config, std::string* error);

// Checks what the service would refuse or what would make the recording
// useless, before anything connects: at least one buffer, each data source
// named and targeting an existing buffer. False with |*error| otherwise.
bool ValidateConfig(const protos::gen::TraceConfig& config, std::string* error);

// Exit codes (exit_codes.h): a bad command line is 2 (as getopt-style
// tools do), any other failure 1.

// `ztrace record`'s command line, as given (values not checked yet).
struct RecordFlags {
  bool help = false;          // -h, --help
  std::string config_path;    // -c, --config (empty: shorthand)
  bool text_config = false;   // --txt
  std::string out_path;       // -o, --out ("-": stdout)
  bool background = false;    // -d, --background (-D, --background-wait)
  bool no_clobber = false;    // --no-clobber
  bool has_shorthand = false; // Any of -t, -b, -s or a category given.
  ShorthandOptions shorthand;
};

// Parses the arguments after "record": "-x VALUE", "-xVALUE", "--long VALUE"
// and "--long=VALUE", switches alone or clustered ("-dh"); arguments not starting with '-' (and every argument
// after "--") are categories. False with |*error| on an unknown option, a
// missing value, or a combination that cannot work (-c with shorthand
// flags, --txt without -c, no -o, --background to stdout); with --help it
// succeeds without checking the rest.
bool ParseRecordFlags(const std::vector<std::string>& args, RecordFlags* flags,
                      std::string* error);

// The text `ztrace record --help` prints.
std::string RecordUsage();

// The config |flags| stand for (reading -c's file), validated. Returns
// kExitOk, or with |*error|: kExitUsage for a bad shorthand value (-t 10),
// kExitFailure for a config file that cannot be read, parsed or used.
int BuildRecordConfig(const RecordFlags& flags, protos::gen::TraceConfig* config,
                      std::string* error);

}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_RECORD_CONFIG_H_
