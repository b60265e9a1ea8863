// Triggers a producer activates (ActivateTriggers): they start or stop the
// sessions whose trigger_config names them, and are recorded in their
// traces; and the decoding of trigger configs, with upstream's refusals and
// ours. What a session does while it waits (no data, the timeouts) is in
// tracing_service_impl.cc. This object is linked only by the callers of
// TracingService::ActivateTriggers (the daemon's producer port, the SDK's
// Tracing::ActivateTriggers): a program that cannot activate triggers
// refuses trigger configs instead of carrying this code.

#include <algorithm>
#include <string>
#include <vector>

#include "src/tracing/service/service_packets.h"
#include "src/tracing/service/tracing_service_endpoints.h"
#include "src/tracing/service/tracing_service_impl.h"
#include "zt/base/logging.h"
#include "zt/config/trace_config.pbzero.h"
#include "zt/ext/tracing/core/service_triggers.h"
#include "zt/protozero/scattered_heap_buffer.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/trigger.pbzero.h"

namespace zt {
namespace {

constexpr uint64_t kDayNs = 24ull * 3600 * 1000 * 1000 * 1000;
// Trigger packets a session keeps between two reads, and triggers the
// max_per_24_h window remembers: bounds against a producer in a loop.
constexpr size_t kMaxUnreadTriggerPackets = 1024;
constexpr size_t kMaxTriggerHistory = 4096;

// The trace's record of a trigger, on the service's sequence (as upstream
// writes it: TracePacket.trigger, at the time it arrived).
std::vector<uint8_t> MakeTriggerPacket(const std::string& name, const std::string& producer,
                                       int32_t producer_uid, uint32_t stop_delay_ms,
                                       uint64_t boottime_ns, int32_t service_uid) {
  protozero::HeapBuffered<protos::pbzero::TracePacket> packet;
  packet->set_timestamp(boottime_ns);
  auto* trigger = packet->set_trigger();
  trigger->set_trigger_name(name);
  trigger->set_producer_name(producer);
  trigger->set_trusted_producer_uid(producer_uid);
  if (stop_delay_ms)
    trigger->set_stop_delay_ms(stop_delay_ms);
  packet->set_trusted_uid(service_uid);
  packet->set_trusted_packet_sequence_id(kServicePacketSequenceId);
  packet->set_timestamp_clock_id(kClockBoottime);
  return packet.SerializeAsArray();
}

// A draw in [0, 1) (xorshift64*; seeded from the clock on first use).
double NextUnit(uint64_t* state) {
  if (*state == 0)
    *state = BoottimeNs() | 1;
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return static_cast<double>((*state * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
}

// Linked with the matching: where triggers can be activated, trigger
// configs are accepted (tracing_service_impl.cc refuses them otherwise).
const bool g_trigger_config_decoder_installed = TracingServiceImpl::InstallTriggerConfigDecoder();

}  // namespace

bool TracingServiceImpl::InstallTriggerConfigDecoder() {
  trigger_config_decoder = &TracingServiceImpl::DecodeTriggerConfig;
  return true;
}

std::string TracingServiceImpl::DecodeTriggerConfig(const protos::gen::TraceConfig& config,
                                                    TriggerSpec* spec) {
  *spec = TriggerSpec();
  if (!config.has_trigger_config())
    return "";
  const std::string& raw = config.trigger_config_raw();
  protos::pbzero::TraceConfig_TriggerConfig_Decoder decoder(
      reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
  const int mode = static_cast<int>(decoder.trigger_mode());
  if (mode == TriggerSpec::kNone)
    return "";  // Upstream too ignores triggers without a mode.
  if (mode != TriggerSpec::kStartTracing && mode != TriggerSpec::kStopTracing) {
    return "trigger_mode " + std::to_string(mode) +
           " is not supported (START_TRACING and STOP_TRACING are)";
  }
  spec->mode = static_cast<TriggerSpec::Mode>(mode);
  spec->timeout_ms = decoder.trigger_timeout_ms();
  constexpr uint32_t kMaxTriggerTimeoutMs = 7 * 24 * 3600 * 1000u;
  if (spec->timeout_ms == 0 || spec->timeout_ms > kMaxTriggerTimeoutMs)
    return "a trigger config needs a trigger_timeout_ms between 1 ms and 7 days";
  if (config.duration_ms() != 0) {
    return "duration_ms must not be set with triggers (trigger_timeout_ms and each "
           "trigger's stop_delay_ms decide)";
  }
  if (mode == TriggerSpec::kStopTracing && config.write_into_file())
    return "STOP_TRACING triggers cannot be used with write_into_file";
  for (auto it = decoder.triggers(); it; ++it) {
    protos::pbzero::TraceConfig_TriggerConfig_Trigger_Decoder t(*it);
    TriggerSpec::Trigger trigger;
    trigger.name = std::string(t.name());
    if (t.has_producer_name_regex() && !t.producer_name_regex().empty()) {
      return "trigger \"" + trigger.name +
             "\" has a producer_name_regex, which this service does not support";
    }
    for (const TriggerSpec::Trigger& earlier : spec->list) {
      if (earlier.name == trigger.name)
        return "trigger \"" + trigger.name + "\" is listed twice";
    }
    trigger.stop_delay_ms = t.stop_delay_ms();
    trigger.max_per_24_h = t.max_per_24_h();
    trigger.skip_probability = t.skip_probability();
    spec->list.push_back(std::move(trigger));
  }
  return "";
}

void TracingService::ActivateTriggers(ProducerEndpoint* producer,
                                      const std::vector<std::string>& names) {
  static_cast<TracingServiceImpl*>(this)->ActivateTriggersFrom(producer, names);
}

void ActivateServiceTriggers(TracingService* service, ProducerEndpoint* producer,
                             const std::vector<std::string>& names) {
  service->ActivateTriggers(producer, names);
}

void TracingServiceImpl::ActivateTriggersFrom(ProducerEndpoint* endpoint,
                                              const std::vector<std::string>& names) {
  auto producer_it = producers_.find(endpoint->producer_id());
  if (producer_it == producers_.end())
    return;
  const ProducerState& producer = *producer_it->second;
  for (const std::string& name : names) {
    const uint64_t now = BoottimeNs();
    // The window of max_per_24_h: what was applied in the last day.
    trigger_history_.erase(
        std::remove_if(trigger_history_.begin(), trigger_history_.end(),
                       [now](const auto& h) { return now - h.first > kDayNs; }),
        trigger_history_.end());
    const size_t in_window = static_cast<size_t>(
        std::count_if(trigger_history_.begin(), trigger_history_.end(),
                      [&name](const auto& h) { return h.second == name; }));
    bool applied = false;
    for (auto& entry : sessions_) {
      Session* s = entry.second.get();
      const auto& triggers = s->triggers.list;
      auto trigger = std::find_if(triggers.begin(), triggers.end(),
                                  [&name](const TriggerSpec::Trigger& t) { return t.name == name; });
      const TriggerSpec::Mode mode = s->triggers.mode;
      if (trigger == triggers.end() || mode == TriggerSpec::kNone || s->stopping_or_stopped())
        continue;
      if (trigger->skip_probability > 0 &&
          NextUnit(&trigger_random_state_) < trigger->skip_probability) {
        continue;
      }
      if (trigger->max_per_24_h > 0 && in_window >= trigger->max_per_24_h)
        continue;
      applied = true;
      s->triggers_received++;
      // Recorded, up to a bound per read: a producer firing in a loop must
      // not grow the service without limit (the trigger still acts).
      if (s->service_packets->pending_packets() < kMaxUnreadTriggerPackets) {
        s->service_packets->AddPacket(MakeTriggerPacket(name, producer.options.name,
                                                        producer.options.uid,
                                                        trigger->stop_delay_ms, now,
                                                        service_uid_));
      } else if (!s->trigger_records_capped) {
        s->trigger_records_capped = true;
        ZT_WLOG("session %llu: more than %zu triggers between two reads; later ones act "
                "but are not recorded in the trace",
                static_cast<unsigned long long>(s->id), kMaxUnreadTriggerPackets);
      }
      if (mode == TriggerSpec::kStartTracing) {
        if (s->state != SessionState::kConfigured)
          continue;
        // The trace lasts the trigger's stop delay from here (0: until the
        // consumer stops it).
        s->config.set_duration_ms(trigger->stop_delay_ms);
        StartSession(s);
      } else if (!s->stop_trigger_scheduled && s->state == SessionState::kStarted) {
        // STOP_TRACING: the first trigger while tracing sets the stop (one
        // before a deferred start only counts as received).
        s->stop_trigger_scheduled = true;
        const uint64_t session_id = s->id;
        PostDelayedIfAlive(trigger->stop_delay_ms, [session_id](TracingServiceImpl* self) {
          if (Session* session = self->SessionById(session_id))
            self->FlushAndStopSession(session);
        });
      }
    }
    if (applied) {
      if (trigger_history_.size() == kMaxTriggerHistory)
        trigger_history_.erase(trigger_history_.begin());
      trigger_history_.emplace_back(now, name);
    }
  }
}

}  // namespace zt
