#include "src/cmd/ztrace/record_config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <utility>

#include "src/base/scoped_file.h"
#include "zt/config/data_source_config.gen.h"
#include "zt/config/track_event/track_event_config.gen.h"
#include "zt/protozero/text_format.h"

namespace zt {
namespace ztrace {
namespace {

struct Unit {
  const char* suffix;  // Lower case.
  uint64_t multiplier;
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "<digits><unit>" with |unit| one of |units| (case-insensitive), or "0".
// The product must fit in uint32 (both config fields it feeds are 32-bit).
bool ParseWithUnit(std::string_view text, const Unit* units, size_t num_units,
                   const char* what, const char* examples, uint32_t* out,
                   std::string* error) {
  if (text == "0") {
    *out = 0;
    return true;
  }
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
    digits++;
  const std::string unit = Lower(text.substr(digits));
  if (digits == 0 || unit.empty()) {
    *error = std::string("bad ") + what + " \"" + std::string(text) +
             "\": expected a number and a unit, e.g. " + examples;
    return false;
  }
  // Parse by hand: strtoull would accept signs and spaces, and saturate.
  uint64_t value = 0;
  for (size_t i = 0; i < digits; i++) {
    value = value * 10 + static_cast<uint64_t>(text[i] - '0');
    if (value > std::numeric_limits<uint32_t>::max())
      break;  // Too big whatever the unit; reported below.
  }
  for (size_t i = 0; i < num_units; i++) {
    if (unit != units[i].suffix)
      continue;
    const uint64_t limit = std::numeric_limits<uint32_t>::max();
    if (value > limit / units[i].multiplier) {
      *error = std::string(what) + " \"" + std::string(text) + "\" is too large";
      return false;
    }
    *out = static_cast<uint32_t>(value * units[i].multiplier);
    return true;
  }
  *error = std::string("bad ") + what + " \"" + std::string(text) +
           "\": unknown unit \"" + std::string(text.substr(digits)) +
           "\" (use " + examples + ")";
  return false;
}

}  // namespace

bool ParseDurationMs(std::string_view text, uint32_t* ms, std::string* error) {
  static const Unit kUnits[] = {
      {"ms", 1}, {"s", 1000}, {"m", 60 * 1000}, {"h", 60 * 60 * 1000}};
  return ParseWithUnit(text, kUnits, std::size(kUnits), "duration",
                       "500ms, 10s, 2m or 1h", ms, error);
}

bool ParseSizeKb(std::string_view text, uint32_t* kb, std::string* error) {
  static const Unit kUnits[] = {{"kb", 1},           {"mb", 1024},
                                {"gb", 1024 * 1024}, {"k", 1},
                                {"m", 1024},         {"g", 1024 * 1024}};
  return ParseWithUnit(text, kUnits, std::size(kUnits), "size",
                       "512kb, 32mb or 1gb", kb, error);
}

bool BuildShorthandConfig(const ShorthandOptions& options,
                          protos::gen::TraceConfig* config, std::string* error) {
  uint32_t duration_ms = 0;
  uint32_t buffer_kb = 0;
  uint32_t max_file_kb = 0;
  if (!ParseDurationMs(options.duration, &duration_ms, error)) {
    *error = "-t: " + *error;
    return false;
  }
  if (!ParseSizeKb(options.buffer_size, &buffer_kb, error)) {
    *error = "-b: " + *error;
    return false;
  }
  if (buffer_kb == 0) {
    *error = "-b: the buffer size must be more than 0";
    return false;
  }
  if (!options.max_file_size.empty()) {
    if (!ParseSizeKb(options.max_file_size, &max_file_kb, error)) {
      *error = "-s: " + *error;
      return false;
    }
    if (max_file_kb == 0) {
      *error = "-s: the file size limit must be more than 0";
      return false;
    }
  }

  protos::gen::TraceConfig cfg;
  auto* buffer = cfg.add_buffers();
  buffer->set_size_kb(buffer_kb);
  buffer->set_fill_policy(protos::gen::TraceConfig_BufferConfig_FillPolicy_RING_BUFFER);
  cfg.set_duration_ms(duration_ms);
  cfg.set_flush_period_ms(kShorthandFlushPeriodMs);
  cfg.mutable_incremental_state_config()->set_clear_period_ms(kShorthandClearPeriodMs);
  if (max_file_kb) {
    cfg.set_write_into_file(true);
    cfg.set_max_file_size_bytes(uint64_t{max_file_kb} * 1024);
  }
  auto* ds = cfg.add_data_sources()->mutable_config();
  ds->set_name("track_event");
  ds->set_target_buffer(0);
  protos::gen::TrackEventConfig te;
  if (!options.categories.empty()) {
    for (const std::string& category : options.categories)
      te.add_enabled_categories(category);
    te.add_disabled_categories("*");
  } else {
    // Every category not tagged slow or debug, said outright: the C++
    // SDKs' default for an empty config, but the C ABI's (upstream's
    // libperfetto_c, libzerotrace_c) turns on only what a config names.
    // Exact tags decide before patterns, so a tagged category stays off.
    te.add_enabled_categories("*");
    te.add_disabled_tags("slow");
    te.add_disabled_tags("debug");
  }
  ds->set_track_event_config_raw(te.SerializeAsString());
  *config = std::move(cfg);
  return true;
}

bool ParseConfig(std::string_view bytes, bool text, const std::string& file_name,
                 protos::gen::TraceConfig* config, std::string* error) {
  protos::gen::TraceConfig cfg;
  if (text) {
    std::string encoded;
    protozero::TextFormatError text_error;
    if (!protozero::ParseTextFormat(*protos::gen::TraceConfig::GetSchema(), bytes,
                                    &encoded, &text_error)) {
      *error = protozero::FormatTextFormatError(file_name, text_error);
      return false;
    }
    // Cannot fail on what the schema-driven parser produced; checked anyway
    // so that a mismatch between schema and classes is an error, not a
    // silently empty config.
    if (!cfg.ParseFromString(encoded)) {
      *error = file_name + ": internal error: the parsed config does not decode";
      return false;
    }
    *config = std::move(cfg);
    return true;
  }
  if (!cfg.ParseFromArray(bytes.data(), bytes.size())) {
    const bool printable = !bytes.empty() &&
        std::all_of(bytes.begin(), bytes.end(), [](char c) {
          return (c >= 32 && c <= 126) || (c >= 9 && c <= 13);
        });
    *error = file_name + ": not a valid binary TraceConfig";
    if (printable)
      *error += " (it looks like text: add --txt to read it as a .pbtxt config)";
    return false;
  }
  *config = std::move(cfg);
  return true;
}

bool LoadConfigFile(const std::string& path, bool text,
                    protos::gen::TraceConfig* config, std::string* error) {
  const bool from_stdin = path == "-";
  const std::string name = from_stdin ? "<stdin>" : path;
  base::ScopedFile owned;
  int fd = STDIN_FILENO;
  if (!from_stdin) {
    owned.reset(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!owned) {
      *error = "cannot read the config " + path + ": " + strerror(errno);
      return false;
    }
    fd = owned.get();
  }
  std::string bytes;
  char buf[16 * 1024];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n == 0)
      break;
    if (n < 0) {
      if (errno == EINTR)
        continue;
      *error = "cannot read the config " + name + ": " + strerror(errno);
      return false;
    }
    bytes.append(buf, static_cast<size_t>(n));
  }
  if (bytes.empty()) {
    *error = "the config " + name + " is empty";
    return false;
  }
  return ParseConfig(bytes, text, name, config, error);
}

bool ValidateConfig(const protos::gen::TraceConfig& config, std::string* error) {
  if (config.buffers().empty()) {
    *error = "the config has no buffers (add e.g. buffers { size_kb: 32768 })";
    return false;
  }
  for (size_t i = 0; i < config.buffers().size(); i++) {
    if (config.buffers()[i].size_kb() == 0) {
      *error = "buffer " + std::to_string(i) + " of the config has no size_kb";
      return false;
    }
  }
  if (config.data_sources().empty()) {
    *error = "the config has no data sources: the trace would be empty";
    return false;
  }
  for (const auto& ds : config.data_sources()) {
    if (ds.config().name().empty()) {
      *error = "a data source of the config has no name";
      return false;
    }
    if (ds.config().target_buffer() >= config.buffers().size()) {
      const size_t buffers = config.buffers().size();
      *error = "data source \"" + ds.config().name() + "\" targets buffer " +
               std::to_string(ds.config().target_buffer()) + ", but the config defines " +
               std::to_string(buffers) + (buffers == 1 ? " buffer" : " buffers") +
               " (target_buffer counts from 0)";
      return false;
    }
  }
  return true;
}

namespace {

// The options that take a value, by short and long name.
struct ValueOption {
  char short_name;
  const char* long_name;
};
constexpr ValueOption kValueOptions[] = {
    {'c', "config"}, {'o', "out"}, {'t', "time"}, {'b', "buffer"}, {'s', "size"}};

void SetValue(char option, std::string value, RecordFlags* flags) {
  switch (option) {
    case 'c':
      flags->config_path = std::move(value);
      break;
    case 'o':
      flags->out_path = std::move(value);
      break;
    case 't':
      flags->has_shorthand = true;
      flags->shorthand.duration = std::move(value);
      break;
    case 'b':
      flags->has_shorthand = true;
      flags->shorthand.buffer_size = std::move(value);
      break;
    case 's':
      flags->has_shorthand = true;
      flags->shorthand.max_file_size = std::move(value);
      break;
  }
}

// A flag without value; false if |name| (without dashes) is none.
bool SetSwitch(const std::string& name, RecordFlags* flags) {
  if (name == "h" || name == "help") {
    flags->help = true;
  } else if (name == "txt") {
    flags->text_config = true;
  } else if (name == "d" || name == "background" || name == "D" ||
             name == "background-wait") {
    // Our --background always waits for the session to start, which is
    // what upstream's --background-wait adds: one flag for both.
    flags->background = true;
  } else if (name == "no-clobber") {
    flags->no_clobber = true;
  } else {
    return false;
  }
  return true;
}

}  // namespace

bool ParseRecordFlags(const std::vector<std::string>& args, RecordFlags* flags,
                      std::string* error) {
  RecordFlags out;
  bool options_done = false;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string& arg = args[i];
    if (options_done || arg.empty() || arg[0] != '-') {
      out.has_shorthand = true;
      out.shorthand.categories.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (arg == "-") {
      *error = "unexpected \"-\" (it is a value: -c - or -o -)";
      return false;
    }
    const bool is_long = arg.size() > 2 && arg[1] == '-';
    // Split "--name=value" and "-xVALUE"; the value may also be the next arg.
    std::string name;
    std::string value;
    bool has_value = false;
    if (is_long) {
      const size_t eq = arg.find('=');
      name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        has_value = true;
      }
    } else {
      name = arg.substr(1, 1);
      if (arg.size() > 2) {
        value = arg.substr(2);
        has_value = true;
      }
    }
    const ValueOption* option = nullptr;
    for (const ValueOption& o : kValueOptions) {
      if (is_long ? name == o.long_name : name[0] == o.short_name)
        option = &o;
    }
    if (!option) {
      if (!has_value && SetSwitch(name, &out))
        continue;
      if (has_value && is_long && SetSwitch(name, &out)) {
        *error = "option --" + name + " takes no value";
        return false;
      }
      if (!is_long) {  // A cluster of switches: "-dh".
        bool all = true;
        for (size_t c = 1; c < arg.size() && all; c++)
          all = SetSwitch(std::string(1, arg[c]), &out);
        if (all)
          continue;
      }
      *error = "unknown option \"" + arg + "\"";
      return false;
    }
    if (!has_value) {
      if (i + 1 >= args.size()) {
        *error = "option " + arg + " needs a value";
        return false;
      }
      value = args[++i];
    }
    SetValue(option->short_name, std::move(value), &out);
  }
  if (out.help) {
    *flags = std::move(out);
    return true;
  }
  if (!out.config_path.empty() && out.has_shorthand) {
    *error = "-c cannot be combined with -t, -b, -s or categories";
    return false;
  }
  if (out.text_config && out.config_path.empty()) {
    *error = "--txt needs a config file (-c FILE)";
    return false;
  }
  if (out.out_path.empty()) {
    *error = "an output file is required: -o FILE (-o - writes to stdout)";
    return false;
  }
  if (out.background && out.out_path == "-") {
    *error = "--background cannot write the trace to stdout: give -o FILE";
    return false;
  }
  *flags = std::move(out);
  return true;
}

std::string RecordUsage() {
  return R"(Usage: ztrace record -o FILE [-c CONFIG [--txt] | [-t TIME] [-b SIZE] [-s SIZE] [CATEGORY...]]

Records a trace from the tracing service (ztraced, or Perfetto's traced) into
FILE, as Perfetto's `perfetto` command does. Ctrl-C (or SIGTERM) stops the
session early: the data recorded so far is flushed and written. A second
Ctrl-C aborts at once.

  -o, --out FILE         where the trace goes; - writes it to stdout
  -c, --config FILE      a TraceConfig file; - reads it from stdin
      --txt              the config is in text format (.pbtxt), not binary
  -d, --background       once the session has started, print the pid of the
                         process that keeps it and exit; `kill -TERM PID`
                         stops it early (-D, --background-wait: the same)
      --no-clobber       do not overwrite an existing FILE
  -h, --help             this text

Without -c, a config is built from (defaults in brackets):
  -t, --time TIME        how long to trace: 500ms, 10s, 2m, 1h; 0 traces
                         until stopped [10s]
  -b, --buffer SIZE      the ring buffer's size: 512kb, 32mb, 1gb [32mb];
                         data sources write their interned state again every
                         5 s, so that a ring that wrapped stays readable
  -s, --size SIZE        stream the trace into FILE while recording and stop
                         when it reaches SIZE (kb, mb, gb) [off: the buffer is
                         read at the end]
  CATEGORY...            track_event categories to record (globs like "gfx*"
                         work); none: every category not tagged slow or debug

Exit status: 0 when the trace was written, 1 on failure, 2 on a bad command
line. The service's socket is $PERFETTO_CONSUMER_SOCK_NAME if set.

Example: ztrace record -t 5s -b 64mb -o app.pftrace app rendering
)";
}

int BuildRecordConfig(const RecordFlags& flags, protos::gen::TraceConfig* config,
                      std::string* error) {
  protos::gen::TraceConfig cfg;
  if (flags.config_path.empty()) {
    if (!BuildShorthandConfig(flags.shorthand, &cfg, error))
      return kExitUsage;
  } else if (!LoadConfigFile(flags.config_path, flags.text_config, &cfg, error)) {
    return kExitFailure;
  }
  if (!ValidateConfig(cfg, error))
    return kExitFailure;
  *config = std::move(cfg);
  return kExitOk;
}

}  // namespace ztrace
}  // namespace zt
