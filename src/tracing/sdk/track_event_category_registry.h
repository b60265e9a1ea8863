// The run-time side of track event categories: which slots are registered
// (ZT_DEFINE_CATEGORIES), which session instances record which categories
// (their TrackEventConfig), and the state bytes the call sites load
// (zt/tracing/category.h). docs/design/track_event.md.
//
// Thread-safety: every function may be called from any thread; changes are
// made under one mutex and published with relaxed stores (a call site that
// sees a bit a moment late writes one event less or more, never a torn
// one: the writer checks the instance again).

#ifndef ZT_SRC_TRACING_SDK_TRACK_EVENT_CATEGORY_REGISTRY_H_
#define ZT_SRC_TRACING_SDK_TRACK_EVENT_CATEGORY_REGISTRY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "zt/tracing/category.h"

namespace zt {
namespace internal {

// Which categories one session instance records, from its TrackEventConfig,
// by upstream Perfetto's current rules (docs/design/track_event.md):
//   * patterns: "name" matches that name; "prefix*" matches names starting
//     with prefix (one '*', last); a lone "*" matches every name;
//   * three passes, most specific first: exact names, then prefix
//     patterns, then "*". In each pass, the first rule that matches wins:
//       1. enabled_categories: enabled;
//       2. disabled_categories: disabled;
//       3. a tag in disabled_tags (when the config has none and no
//          enabled_tags either: the tags "slow" and "debug"): disabled;
//       4. a tag in enabled_tags: enabled;
//   * nothing matched: enabled.
// Dynamic categories have no tags, except that a name starting with
// "disabled-by-default-" counts as tagged "slow".
class CategoryFilter {
 public:
  CategoryFilter() = default;
  // |config| is a serialized TrackEventConfig (empty: the defaults).
  static CategoryFilter FromConfig(const std::string& config);

  bool IsEnabled(const Category& category) const;
  bool IsEnabled(const char* dynamic_name) const;  // No tags.

  std::vector<std::string> enabled_categories;
  std::vector<std::string> disabled_categories;
  std::vector<std::string> enabled_tags;
  std::vector<std::string> disabled_tags;

 private:
  bool IsEnabled(const char* name, const char* const* tags, size_t num_tags) const;
};


// Instance |instance| (0..7) starts recording the categories |filter|
// enables, in every slot registered now or later.
void EnableCategoryInstance(uint32_t instance, const CategoryFilter& filter);
// Instance |instance| stops recording (its bits are cleared everywhere).
void DisableCategoryInstance(uint32_t instance);

// A declared category's name by id, or null (tests, the trace's interned
// category names).
const char* RegisteredCategoryName(uint32_t id);

// For tests: every registered category as "slot:index:name".
std::vector<std::string> ListRegisteredCategories();

}  // namespace internal
}  // namespace zt

#endif  // ZT_SRC_TRACING_SDK_TRACK_EVENT_CATEGORY_REGISTRY_H_
