// Track events from C: the category registry, the "track_event" data
// source that turns categories on and off per session, and the sequence
// state every trace point (high- or low-level) prepares before writing.

#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <mutex>

#include "src/c_abi/track_event_internal.h"
#include "src/tracing/sdk/process_identity.h"
#include "zt/tracing/track.h"
#include "zt/base/logging.h"
#include "zt/common/data_source_descriptor.gen.h"
#include "zt/common/track_event_descriptor.pbzero.h"
#include "zt/config/data_source_config.gen.h"
#include "zt/config/track_event/track_event_config.gen.h"
#include "zt/ext/tracing/core/trace_writer.h"
#include "zt/protozero/scattered_heap_buffer.h"
#include "zt/trace/clock_snapshot.pbzero.h"
#include "zt/trace/trace_packet.pbzero.h"
#include "zt/trace/trace_packet_defaults.pbzero.h"
#include "zt/trace/track_event/thread_descriptor.pbzero.h"
#include "zt/trace/track_event/track_descriptor.pbzero.h"
#include "zt/trace/track_event/track_event.pbzero.h"
#include "zt/tracing/data_source.h"

namespace {

// The category dynamic categories go through: on whenever an instance is.
// Constant-initialized, so the exported pointers are valid before any call.
PerfettoTeCategoryImpl g_any_category;

}  // namespace

extern "C" {
ZT_C_EXPORT PerfettoTeCategoryImpl* perfetto_te_any_categories = &g_any_category;
ZT_C_EXPORT std::atomic<bool>* perfetto_te_any_categories_enabled = &g_any_category.flag;
ZT_C_EXPORT uint64_t perfetto_te_process_track_uuid = 0;
}

void PerfettoTeCategoryImpl::EnableInstance(uint32_t index) {
  ZT_CHECK(index < zt::internal::kMaxDataSourceInstances);
  const uint8_t old = instances.fetch_or(static_cast<uint8_t>(1u << index), std::memory_order_release);
  const bool first = old == 0;
  if (first)
    flag.store(true, std::memory_order_relaxed);
  if (cb)
    cb(this, index, /*created=*/true, first, cb_user_arg);
}

void PerfettoTeCategoryImpl::DisableInstance(uint32_t index) {
  ZT_CHECK(index < zt::internal::kMaxDataSourceInstances);
  const uint8_t bit = static_cast<uint8_t>(1u << index);
  const uint8_t old = instances.fetch_and(static_cast<uint8_t>(~bit), std::memory_order_release);
  if (!(old & bit))
    return;
  const bool last = old == bit;
  if (last)
    flag.store(false, std::memory_order_relaxed);
  if (cb)
    cb(this, index, /*created=*/false, last, cb_user_arg);
}

namespace zt {
namespace c_abi {

internal::DataSourceStaticState g_te_state;

namespace {

using internal::DataSourceInstanceThreadLocalState;
using internal::DataSourceThreadLocalState;
using internal::kMaxDataSourceInstances;

// The process-wide registry: categories, the configs of started
// instances, the data source's slots. Leaked: trace points may run during
// static destruction.
struct TeRegistry {
  // Held while categories are turned on and off, and so around their
  // callbacks: a callback may trace, so nothing a trace point does takes
  // it (a dynamic category reads configs under configs_mu alone).
  std::mutex mu;
  std::vector<PerfettoTeCategoryImpl*> categories;  // Under mu.
  // Started instances' configs, for categories registered later and for
  // dynamic categories. Under configs_mu, taken after mu when both are.
  std::mutex configs_mu;
  bool started[kMaxDataSourceInstances] = {};
  std::string configs[kMaxDataSourceInstances];
  uint64_t last_iid = 0;  // Under mu.
  std::atomic<bool> initialized{false};

  static TeRegistry& Get() {
    static TeRegistry* registry = [] {
      auto* r = new TeRegistry();
      pthread_atfork(&AtForkPrepare, &AtForkParent, &AtForkChild);
      return r;
    }();
    return *registry;
  }

  // Across fork(): the lock is held, so that the child finds the registry
  // whole; the child has none of the sessions (the SDK stops them there),
  // so every category is off in it, its trace points back to their inline
  // check. Without this a child would write into writers it inherited,
  // over shared memory its parent still uses. No callback is told (the
  // child may not run arbitrary code here).
  static void AtForkPrepare() {
    Get().mu.lock();
    Get().configs_mu.lock();
  }
  static void AtForkParent() {
    Get().configs_mu.unlock();
    Get().mu.unlock();
  }
  static void AtForkChild();
};

void TeRegistry::AtForkChild() {
  TeRegistry& registry = Get();
  auto turn_off = [](PerfettoTeCategoryImpl* cat) {
    cat->instances.store(0, std::memory_order_relaxed);
    cat->flag.store(false, std::memory_order_relaxed);
  };
  turn_off(&g_any_category);
  for (PerfettoTeCategoryImpl* cat : registry.categories)
    turn_off(cat);
  for (uint32_t i = 0; i < kMaxDataSourceInstances; i++)
    registry.started[i] = false;
  registry.configs_mu.unlock();
  registry.mu.unlock();
}

std::string EncodeTrackEventDescriptor(const std::vector<PerfettoTeCategoryImpl*>& categories) {
  protozero::HeapBuffered<protos::pbzero::TrackEventDescriptor> descriptor;
  for (const PerfettoTeCategoryImpl* cat : categories) {
    auto* category = descriptor->add_available_categories();
    category->set_name(cat->desc->name);
    if (cat->desc->desc)
      category->set_description(cat->desc->desc);
    for (size_t i = 0; i < cat->desc->num_tags; i++)
      category->add_tags(cat->desc->tags[i]);
  }
  return descriptor.SerializeAsString();
}

protos::gen::DataSourceDescriptor CurrentDescriptor() {
  TeRegistry& registry = TeRegistry::Get();
  protos::gen::DataSourceDescriptor descriptor;
  descriptor.set_name("track_event");
  std::lock_guard<std::mutex> lock(registry.mu);
  descriptor.set_track_event_descriptor_raw(EncodeTrackEventDescriptor(registry.categories));
  return descriptor;
}

// An instance of "track_event": turns its categories on at start, off at
// stop; keeps the sequence settings its config asks for.
class TeDataSource : public DataSourceBase {
 public:
  void OnSetup(const SetupArgs& args) override {
    index_ = args.internal_instance_index;
    if (args.config)
      config_raw_ = args.config->track_event_config_raw();
    protos::gen::TrackEventConfig config;
    if (!config.ParseFromString(config_raw_))
      ZT_ELOG("track_event (C ABI): the session's track_event_config does not parse; no "
              "category is on");
    if (config.disable_incremental_timestamps()) {
      settings_.default_clock_id = config.timestamp_unit_multiplier() > 1
                                       ? uint32_t{PERFETTO_TE_TIMESTAMP_TYPE_ABSOLUTE}
                                       : uint32_t{PERFETTO_DS_CLOCK_BOOTTIME};
    }
    if (config.timestamp_unit_multiplier() > 1)
      settings_.unit_multiplier = config.timestamp_unit_multiplier();
  }
  void OnStart(const StartArgs&) override {
    TeRegistry& registry = TeRegistry::Get();
    std::lock_guard<std::mutex> lock(registry.mu);
    {
      std::lock_guard<std::mutex> configs_lock(registry.configs_mu);
      registry.started[index_] = true;
      registry.configs[index_] = config_raw_;
    }
    g_any_category.EnableInstance(index_);
    for (PerfettoTeCategoryImpl* cat : registry.categories) {
      if (CategoryEnabledByConfig(*cat->desc, config_raw_))
        cat->EnableInstance(index_);
    }
  }
  void OnStop(const StopArgs&) override {
    TeRegistry& registry = TeRegistry::Get();
    std::lock_guard<std::mutex> lock(registry.mu);
    for (PerfettoTeCategoryImpl* cat : registry.categories)
      cat->DisableInstance(index_);
    g_any_category.DisableInstance(index_);
    std::lock_guard<std::mutex> configs_lock(registry.configs_mu);
    registry.started[index_] = false;
    registry.configs[index_].clear();
  }
  const TeSequenceSettings& settings() const { return settings_; }

 private:
  uint32_t index_ = 0;
  std::string config_raw_;
  TeSequenceSettings settings_;
};

// A config's pattern: a name, or a prefix followed by one '*' (what the
// ABI's matching supports).
bool NameMatches(const std::string& pattern, const char* name, bool allow_pattern) {
  const size_t star = pattern.find('*');
  if (star == std::string::npos)
    return pattern == name;
  return allow_pattern && strncmp(pattern.c_str(), name, star) == 0;
}

bool AnyMatches(const std::vector<std::string>& patterns, const char* name, bool allow_pattern) {
  for (const std::string& pattern : patterns) {
    if (NameMatches(pattern, name, allow_pattern))
      return true;
  }
  return false;
}

bool AnyTagMatches(const std::vector<std::string>& patterns,
                   const PerfettoTeCategoryDescriptor& desc, bool allow_pattern) {
  for (size_t i = 0; i < desc.num_tags; i++) {
    if (desc.tags[i] && AnyMatches(patterns, desc.tags[i], allow_pattern))
      return true;
  }
  return false;
}

}  // namespace

bool CategoryEnabledByConfig(const PerfettoTeCategoryDescriptor& desc,
                             const std::string& config_raw) {
  if (!desc.name)
    return false;
  protos::gen::TrackEventConfig config;
  if (!config.ParseFromString(config_raw))
    return false;
  // Exact names decide first; patterns only if no exact name did. Within
  // each pass: enabled names, enabled tags, disabled names, disabled tags.
  for (bool allow_pattern : {false, true}) {
    if (AnyMatches(config.enabled_categories(), desc.name, allow_pattern) ||
        AnyTagMatches(config.enabled_tags(), desc, allow_pattern))
      return true;
    if (AnyMatches(config.disabled_categories(), desc.name, allow_pattern) ||
        AnyTagMatches(config.disabled_tags(), desc, allow_pattern))
      return false;
  }
  return false;  // Off unless named: the C ABI's rule, unlike C++'s.
}

uint64_t TeThreadTrackUuid() {
  return perfetto_te_process_track_uuid ^ internal::CurrentTid();
}

// A sequence for slot |index|'s current instance, with the settings of
// its config (read under the slot's lock).
void TeMakeSequence(internal::DataSourceInstanceThreadLocalState* tls, uint32_t index) {
  auto seq = std::make_shared<TeSequence>();
  tls->custom_state = seq;
  internal::DataSourceInstanceState& instance = g_te_state.instances[index];
  std::lock_guard<std::recursive_mutex> lock(instance.lock);
  if (const auto* source = static_cast<const TeDataSource*>(instance.data_source))
    seq->settings = source->settings();
}

void TeMakeIncrementalState(internal::DataSourceInstanceThreadLocalState* tls,
                            uint32_t generation) {
  if (tls->incremental_state)
    static_cast<TeIncrementalState*>(tls->incremental_state.get())->Clear();
  else
    tls->incremental_state = std::make_shared<TeIncrementalState>();
  tls->incremental_generation = generation;
}

// The sequence's state after its writer dropped packets (a full buffer):
// what it interned may be in them, so it starts again, as readers will at
// the clear that follows the loss mark.
void TeRestartAfterDrops(const TeSlot& slot, uint64_t dropped) {
  slot.seq->packets_dropped_seen = dropped;
  slot.incr->Clear();
  // An open packet begun while dropping is in the garbage range: the
  // restart's packets would be lost with it.
  if (slot.seq->next_packet && slot.writer()->is_dropping())
    slot.seq->next_packet.Finish();
}

void TeCloseOpenPacket(const TeSlot& slot) {
  if (slot.seq->next_packet)
    slot.seq->next_packet.Finish();
}

TraceWriter::TracePacketHandle TeTakePacket(const TeSlot& slot) {
  return slot.seq->next_packet ? std::move(slot.seq->next_packet)
                               : slot.writer()->NewTracePacket();
}

TraceWriter::TracePacketHandle TeNewPacket(const TeSlot& slot, PerfettoTeTimestamp ts,
                                           uint32_t sequence_flags) {
  const TeSequenceSettings& settings = slot.seq->settings;
  TeIncrementalState& incr = *slot.incr;
  // Events take the incremental clock unless they name another; a config
  // that turned deltas off turns that into its own default clock.
  if (ZT_UNLIKELY(ts.clock_id == PERFETTO_TE_TIMESTAMP_TYPE_INCREMENTAL &&
                  settings.default_clock_id != PERFETTO_TE_TIMESTAMP_TYPE_INCREMENTAL))
    ts.clock_id = settings.default_clock_id;
  auto packet = TeTakePacket(slot);
  const uint64_t unit = settings.unit_multiplier;
  if (ZT_LIKELY(ts.clock_id == PERFETTO_TE_TIMESTAMP_TYPE_INCREMENTAL)) {
    if (ZT_LIKELY(incr.last_timestamp_ns <= ts.value)) {
      const uint64_t delta_units = (ts.value - incr.last_timestamp_ns) / unit;
      packet->set_timestamp(delta_units);
      incr.last_timestamp_ns += delta_units * unit;
    } else {
      // Before the sequence's last event: absolute, on the clock beneath.
      packet->set_timestamp(ts.value / unit);
      packet->set_timestamp_clock_id(unit == 1 ? uint32_t{PERFETTO_DS_CLOCK_BOOTTIME}
                                               : uint32_t{PERFETTO_TE_TIMESTAMP_TYPE_ABSOLUTE});
    }
  } else if (ts.clock_id == settings.default_clock_id) {
    packet->set_timestamp(ts.value / unit);
  } else {
    packet->set_timestamp(ts.value);
    packet->set_timestamp_clock_id(ts.clock_id);
  }
  packet->set_sequence_flags(sequence_flags);
  return packet;
}

void TeResetIfCleared(const TeSlot& slot, PerfettoTeTimestamp ts) {
  TeIncrementalState& incr = *slot.incr;
  if (ZT_LIKELY(!incr.was_cleared))
    return;
  incr.was_cleared = false;
  const TeSequenceSettings& settings = slot.seq->settings;
  // The sequence's clocks start at this event's time, if it is on the
  // boot or incremental clock (both count boot time); else at now.
  uint64_t start = ts.value;
  if (ts.clock_id != PERFETTO_DS_CLOCK_BOOTTIME &&
      ts.clock_id != PERFETTO_TE_TIMESTAMP_TYPE_INCREMENTAL)
    start = TeNowNs(CurrentTeThread());
  incr.last_timestamp_ns = start;
  const uint64_t thread_uuid = TeThreadTrackUuid();
  const uint64_t unit = settings.unit_multiplier;
  {
    auto packet = TeNewPacket(slot, ts, kClearedFlag);
    auto* defaults = packet->set_trace_packet_defaults();
    defaults->set_timestamp_clock_id(settings.default_clock_id);
    defaults->set_track_event_defaults()->set_track_uuid(thread_uuid);
    if (settings.default_clock_id != PERFETTO_DS_CLOCK_BOOTTIME) {
      auto* clocks = packet->set_clock_snapshot();
      auto* boot = clocks->add_clocks();
      boot->set_clock_id(PERFETTO_DS_CLOCK_BOOTTIME);
      boot->set_timestamp(start);
      if (settings.default_clock_id == PERFETTO_TE_TIMESTAMP_TYPE_INCREMENTAL) {
        auto* incremental = clocks->add_clocks();
        incremental->set_clock_id(PERFETTO_TE_TIMESTAMP_TYPE_INCREMENTAL);
        incremental->set_timestamp(start / unit);
        incremental->set_is_incremental(true);
        incremental->set_unit_multiplier_ns(unit);
      }
      if (unit > 1) {
        auto* absolute = clocks->add_clocks();
        absolute->set_clock_id(PERFETTO_TE_TIMESTAMP_TYPE_ABSOLUTE);
        absolute->set_timestamp(start / unit);
        absolute->set_is_incremental(false);
        absolute->set_unit_multiplier_ns(unit);
      }
    }
  }
  // Every sequence describes its thread's track (most events go there
  // without naming it) and the process's, so each is in the trace at least
  // once.
  {
    auto packet = TeNewPacket(slot, ts, kNeedsStateFlag);
    auto* track = packet->set_track_descriptor();
    track->set_uuid(thread_uuid);
    track->set_parent_uuid(perfetto_te_process_track_uuid);
    auto* thread = track->set_thread();
    thread->set_pid(static_cast<int32_t>(getpid()));
    thread->set_tid(static_cast<int64_t>(internal::CurrentTid()));
    char name[64] = {};
    if (pthread_getname_np(pthread_self(), name, sizeof(name)) == 0 && name[0])
      thread->set_thread_name(name);
  }
  {
    auto packet = TeNewPacket(slot, ts, kNeedsStateFlag);
    auto* track = packet->set_track_descriptor();
    internal::FillProcessDescriptor(track);
    track->set_uuid(perfetto_te_process_track_uuid);
  }
}

bool TeDynamicCategoryEnabled(const TeSlot& slot, const PerfettoTeCategoryDescriptor& desc) {
  if (!desc.name)
    return false;
  // The cache key: the descriptor's name and tags, NUL-separated.
  std::string key = desc.name;
  for (size_t i = 0; i < desc.num_tags; i++) {
    key.push_back('\0');
    key += desc.tags[i] ? desc.tags[i] : "";
  }
  for (const auto& entry : slot.incr->dynamic_categories) {
    if (entry.first == key)
      return entry.second;
  }
  TeRegistry& registry = TeRegistry::Get();
  bool enabled = false;
  {
    std::lock_guard<std::mutex> lock(registry.configs_mu);
    enabled = registry.started[slot.index] &&
              CategoryEnabledByConfig(desc, registry.configs[slot.index]);
  }
  if (slot.incr->dynamic_categories.size() < kMaxDynamicCategories)
    slot.incr->dynamic_categories.emplace_back(std::move(key), enabled);
  return enabled;
}

}  // namespace c_abi
}  // namespace zt

using zt::c_abi::TeRegistry;

void PerfettoTeInit(void) {
  TeRegistry& registry = TeRegistry::Get();
  if (registry.initialized.exchange(true)) {
    ZT_WLOG("PerfettoTeInit: called again; the track event data source is registered already");
    return;
  }
  perfetto_te_process_track_uuid = zt::internal::ProcessUuid();
  zt::internal::TracingMuxer* muxer = zt::internal::TracingMuxer::Get();
  if (!muxer) {
    ZT_ELOG("PerfettoTeInit: no backend is initialized (call PerfettoProducerInit first); "
            "track events stay off");
    registry.initialized.store(false);
    return;
  }
  if (!muxer->RegisterDataSource(
          zt::c_abi::CurrentDescriptor(),
          [] { return std::unique_ptr<zt::DataSourceBase>(new zt::c_abi::TeDataSource()); },
          &zt::c_abi::g_te_state)) {
    ZT_ELOG("PerfettoTeInit: a data source named \"track_event\" is registered already in "
            "this process (the C++ SDK's?); C track events stay off");
  }
}

PerfettoTeTimestamp PerfettoTeGetTimestamp(void) {
  PerfettoTeTimestamp ts;
  ts.clock_id = PERFETTO_TE_TIMESTAMP_TYPE_BOOT;
  ts.value = zt::c_abi::TeNowNs(zt::c_abi::CurrentTeThread());
  return ts;
}

PerfettoTeCategoryImpl* PerfettoTeCategoryImplCreate(PerfettoTeCategoryDescriptor* desc) {
  if (desc == nullptr || desc->name == nullptr)
    ZT_FATAL("PerfettoTeCategoryImplCreate: the category descriptor or its name is NULL");
  auto* cat = new PerfettoTeCategoryImpl();
  cat->desc = desc;
  TeRegistry& registry = TeRegistry::Get();
  std::lock_guard<std::mutex> lock(registry.mu);
  cat->cat_iid = ++registry.last_iid;
  bool on[zt::internal::kMaxDataSourceInstances] = {};
  {
    std::lock_guard<std::mutex> configs_lock(registry.configs_mu);
    for (uint32_t i = 0; i < zt::internal::kMaxDataSourceInstances; i++)
      on[i] = registry.started[i] && zt::c_abi::CategoryEnabledByConfig(*desc, registry.configs[i]);
  }
  for (uint32_t i = 0; i < zt::internal::kMaxDataSourceInstances; i++) {
    if (on[i])
      cat->EnableInstance(i);
  }
  registry.categories.push_back(cat);
  return cat;
}

void PerfettoTePublishCategories(void) {
  TeRegistry& registry = TeRegistry::Get();
  if (!registry.initialized.load())
    return;  // PerfettoTeInit() publishes what is registered by then.
  zt::internal::TracingMuxer* muxer = zt::internal::TracingMuxer::Get();
  if (!muxer || !muxer->UpdateDataSource(zt::c_abi::CurrentDescriptor()))
    ZT_ELOG("PerfettoTePublishCategories: the track event data source is not registered");
}

std::atomic<bool>* PerfettoTeCategoryImplGetEnabled(PerfettoTeCategoryImpl* cat) {
  if (cat == nullptr)
    ZT_FATAL("PerfettoTeCategoryImplGetEnabled: the category is NULL");
  return &cat->flag;
}

void PerfettoTeCategoryImplSetCallback(PerfettoTeCategoryImpl* cat,
                                       PerfettoTeCategoryImplCallback cb, void* user_arg) {
  if (cat == nullptr)
    ZT_FATAL("PerfettoTeCategoryImplSetCallback: the category is NULL");
  TeRegistry& registry = TeRegistry::Get();
  std::lock_guard<std::mutex> lock(registry.mu);
  cat->cb = cb;
  cat->cb_user_arg = user_arg;
  if (!cb)
    return;
  const uint8_t on = cat->instances.load(std::memory_order_relaxed);
  bool first = true;
  for (uint32_t i = 0; i < zt::internal::kMaxDataSourceInstances; i++) {
    if (on & (1u << i)) {
      cb(cat, i, /*created=*/true, first, user_arg);
      first = false;
    }
  }
}

uint64_t PerfettoTeCategoryImplGetIid(PerfettoTeCategoryImpl* cat) {
  if (cat == nullptr)
    ZT_FATAL("PerfettoTeCategoryImplGetIid: the category is NULL");
  return cat->cat_iid;
}

void PerfettoTeCategoryImplDestroy(PerfettoTeCategoryImpl* cat) {
  if (cat == nullptr)
    return;
  if (cat == perfetto_te_any_categories)
    ZT_FATAL("PerfettoTeCategoryImplDestroy: perfetto_te_any_categories cannot be destroyed");
  TeRegistry& registry = TeRegistry::Get();
  {
    std::lock_guard<std::mutex> lock(registry.mu);
    auto& cats = registry.categories;
    for (auto it = cats.begin(); it != cats.end(); ++it) {
      if (*it == cat) {
        cats.erase(it);
        break;
      }
    }
  }
  delete cat;
}
