#include "src/tracing/sdk/track_event_category_registry.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "zt/base/logging.h"
#include "zt/config/track_event/track_event_config.pbzero.h"

namespace zt {
namespace internal {

// Zero-initialized before any dynamic initializer runs, so slots may
// register (and call sites load) during static initialization.
RegisteredSlot g_registered_slots[kCategorySlots];

namespace {

struct SlotRegistration {
  const Category* categories;
  uint32_t count;
  const char* defined_in;
};

constexpr uint32_t kMaxInstances = 8;

// All constant-initialized: usable from other files' static initializers.
std::mutex g_mutex;
SlotRegistration g_slots[kCategorySlots];
const CategoryFilter* g_filters[kMaxInstances];  // Owned; null: not recording.

const char* const kDefaultDisabledTags[] = {"slow", "debug"};

void StoreState(uint32_t slot, uint32_t index, uint8_t value) {
  __atomic_store_n(&g_registered_slots[slot].state[index], value,
                   __ATOMIC_RELAXED);
}

// Recomputes slot |slot|'s state bytes from the filters. Under g_mutex.
void UpdateSlotLocked(uint32_t slot) {
  const SlotRegistration& reg = g_slots[slot];
  for (uint32_t index = 0; index < reg.count; index++) {
    uint8_t state = 0;
    for (uint32_t i = 0; i < kMaxInstances; i++) {
      if (g_filters[i] && g_filters[i]->IsEnabled(reg.categories[index]))
        state |= static_cast<uint8_t>(1u << i);
    }
    StoreState(slot, index, state);
  }
}

std::string DescribeSlot(const SlotRegistration& reg) {
  std::string text = reg.defined_in ? reg.defined_in : "?";
  text += " (";
  for (uint32_t i = 0; i < reg.count && i < 4; i++) {
    text += i ? ", " : "";
    text += reg.categories[i].name;
  }
  text += reg.count > 4 ? ", ...)" : ")";
  return text;
}

enum class MatchPass { kExact, kPrefix, kWildcard };

bool PatternMatches(const std::string& pattern, const char* name,
                    MatchPass pass) {
  const size_t star = pattern.find('*');
  if (star == std::string::npos)
    return pattern == name;  // In every pass.
  if (star == 0)
    return pass == MatchPass::kWildcard;
  return pass == MatchPass::kPrefix && strncmp(name, pattern.c_str(), star) == 0;
}

bool MatchesAny(const std::vector<std::string>& patterns, const char* name,
                MatchPass pass) {
  for (const std::string& pattern : patterns) {
    if (PatternMatches(pattern, name, pass))
      return true;
  }
  return false;
}

}  // namespace

bool RegisterCategorySlot(uint32_t slot, const Category* categories,
                          uint32_t count, const char* defined_in) {
  ZT_CHECK(slot < kCategorySlots);
  std::lock_guard<std::mutex> lock(g_mutex);
  SlotRegistration& reg = g_slots[slot];
  if (reg.categories && reg.categories != categories) {
    SlotRegistration other{categories, count, defined_in};
    fprintf(stderr,
            "zerotrace: category slot %u is defined twice: by %s and by %s. "
            "Give each library its own slot (ZT_CATEGORY_SLOT).\n",
            slot, DescribeSlot(reg).c_str(), DescribeSlot(other).c_str());
    abort();
  }
  reg = SlotRegistration{categories, count, defined_in};
  UpdateSlotLocked(slot);
  return true;
}

uint32_t category_not_declared(const char* name) {
  // Only reachable from a constant expression, where it is a compile error.
  ZT_FATAL("category \"%s\" is not declared", name);
}

CategoryFilter CategoryFilter::FromConfig(const std::string& config) {
  CategoryFilter filter;
  protos::pbzero::TrackEventConfig_Decoder decoder(config);
  auto add = [](std::vector<std::string>* out, auto it) {
    for (; it; ++it)
      out->emplace_back(*it);
  };
  add(&filter.enabled_categories, decoder.enabled_categories());
  add(&filter.disabled_categories, decoder.disabled_categories());
  add(&filter.enabled_tags, decoder.enabled_tags());
  add(&filter.disabled_tags, decoder.disabled_tags());
  return filter;
}

bool CategoryFilter::IsEnabled(const Category& category) const {
  size_t num_tags = 0;
  while (num_tags < Category::kMaxTags && category.tags[num_tags])
    num_tags++;
  return IsEnabled(category.name, category.tags, num_tags);
}

bool CategoryFilter::IsEnabled(const char* dynamic_name) const {
  static const char* const kSlowTag[] = {"slow"};
  const bool slow = strncmp(dynamic_name, "disabled-by-default-", 20) == 0;
  return IsEnabled(dynamic_name, slow ? kSlowTag : nullptr, slow ? 1 : 0);
}

bool CategoryFilter::IsEnabled(const char* name, const char* const* tags,
                               size_t num_tags) const {
  const bool default_disabled_tags = disabled_tags.empty() && enabled_tags.empty();
  for (MatchPass pass :
       {MatchPass::kExact, MatchPass::kPrefix, MatchPass::kWildcard}) {
    if (MatchesAny(enabled_categories, name, pass))
      return true;
    if (MatchesAny(disabled_categories, name, pass))
      return false;
    for (size_t i = 0; i < num_tags; i++) {
      if (default_disabled_tags) {
        for (const char* tag : kDefaultDisabledTags) {
          if (strcmp(tags[i], tag) == 0)
            return false;
        }
      } else if (MatchesAny(disabled_tags, tags[i], pass)) {
        return false;
      }
    }
    for (size_t i = 0; i < num_tags; i++) {
      if (MatchesAny(enabled_tags, tags[i], pass))
        return true;
    }
  }
  return true;
}

void EnableCategoryInstance(uint32_t instance, const CategoryFilter& filter) {
  ZT_CHECK(instance < kMaxInstances);
  std::lock_guard<std::mutex> lock(g_mutex);
  delete g_filters[instance];
  g_filters[instance] = new CategoryFilter(filter);
  for (uint32_t slot = 0; slot < kCategorySlots; slot++)
    UpdateSlotLocked(slot);
}

void DisableCategoryInstance(uint32_t instance) {
  ZT_CHECK(instance < kMaxInstances);
  std::lock_guard<std::mutex> lock(g_mutex);
  delete g_filters[instance];
  g_filters[instance] = nullptr;
  for (uint32_t slot = 0; slot < kCategorySlots; slot++)
    UpdateSlotLocked(slot);
}

uint8_t DynamicCategoryInstances(const DynamicCategory& category) {
  if (!category.name)
    return 0;
  std::lock_guard<std::mutex> lock(g_mutex);
  uint8_t state = 0;
  for (uint32_t i = 0; i < kMaxInstances; i++) {
    if (g_filters[i] && g_filters[i]->IsEnabled(category.name))
      state |= static_cast<uint8_t>(1u << i);
  }
  return state;
}

const char* RegisteredCategoryName(uint32_t id) {
  if (id >= kDynamicCategoryId)
    return nullptr;
  std::lock_guard<std::mutex> lock(g_mutex);
  const SlotRegistration& reg = g_slots[id & 0xF];
  return (id >> 4) < reg.count ? reg.categories[id >> 4].name : nullptr;
}

std::vector<std::string> ListRegisteredCategories() {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<std::string> out;
  for (uint32_t slot = 0; slot < kCategorySlots; slot++) {
    for (uint32_t i = 0; i < g_slots[slot].count; i++) {
      out.push_back(std::to_string(slot) + ":" + std::to_string(i) + ":" +
                    g_slots[slot].categories[i].name);
    }
  }
  return out;
}

}  // namespace internal
}  // namespace zt
