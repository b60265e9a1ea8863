#include "src/processor/storage/stats.h"

namespace zt {
namespace processor {
namespace stats {
namespace {

#define ZT_PROCESSOR_STATS_DESCRIPTOR(name, type, severity, source, description) \
  Descriptor{#name, type, severity, source, description},
const Descriptor kDescriptors[] = {
    ZT_PROCESSOR_STATS(ZT_PROCESSOR_STATS_DESCRIPTOR)};
#undef ZT_PROCESSOR_STATS_DESCRIPTOR

static_assert(sizeof(kDescriptors) / sizeof(kDescriptors[0]) == kNumKeys,
              "one descriptor per stat");

}  // namespace

const Descriptor& Describe(Key key) { return kDescriptors[key]; }

const char* SeverityName(Severity severity) {
  switch (severity) {
    case kInfo:
      return "info";
    case kError:
      return "error";
    case kDataLoss:
      return "data_loss";
  }
  return "info";
}

const char* SourceName(Source source) {
  return source == kTrace ? "trace" : "analysis";
}

}  // namespace stats

int64_t StatsTable::GetIndexedTotal(stats::Key key) const {
  int64_t total = 0;
  for (const auto& entry : indexed_[key])
    total += entry.second;
  return total;
}

}  // namespace processor
}  // namespace zt
