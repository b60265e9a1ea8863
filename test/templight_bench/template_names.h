// Template-heavy C++ names for the Templight and name-compression
// benchmarks: nested standard and project templates over shared argument
// types, as a template-heavy program's instantiations (and its
// __PRETTY_FUNCTION__ names) look. Deterministic for a seed.

#ifndef ZT_TEST_TEMPLIGHT_BENCH_TEMPLATE_NAMES_H_
#define ZT_TEST_TEMPLIGHT_BENCH_TEMPLATE_NAMES_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace zt {
namespace test {

class NameMaker {
 public:
  explicit NameMaker(uint32_t seed) : random_(seed) {
    const char* const spaces[] = {"std", "std::__detail", "boost::mpl", "app", "app::detail",
                                  "net", "io::buffers", "math::linalg"};
    const char* const templates[] = {"vector", "map", "pair", "tuple", "unique_ptr",
                                     "function", "optional", "variant", "basic_string",
                                     "allocator", "char_traits", "less", "hash",
                                     "Matrix", "Expr", "Holder", "Traits", "Node",
                                     "Visitor", "enable_if"};
    const char* const leaves[] = {"int", "char", "double", "unsigned long", "bool",
                                  "const char *", "void", "float", "long long"};
    for (const char* space : spaces) {
      for (const char* name : templates)
        templates_.push_back(std::string(space) + "::" + name);
      for (int i = 0; i < 40; i++)
        leaves_.push_back(std::string(space) + "::Type" + std::to_string(i));
    }
    for (const char* leaf : leaves)
      leaves_.push_back(leaf);
  }

  std::string Make(int depth) {
    if (depth <= 0 || random_() % 3 == 0)
      return leaves_[random_() % leaves_.size()];
    std::string name = templates_[random_() % templates_.size()] + "<";
    const int arguments = 1 + static_cast<int>(random_() % 3);
    for (int i = 0; i < arguments; i++) {
      if (i > 0)
        name += ", ";
      name += Make(depth - 1);
    }
    name += ">";
    if (random_() % 8 == 0)
      name += "::type";
    return name;
  }

  std::mt19937& random() { return random_; }

 private:
  std::mt19937 random_;
  std::vector<std::string> templates_;
  std::vector<std::string> leaves_;
};

}  // namespace test
}  // namespace zt

#endif  // ZT_TEST_TEMPLIGHT_BENCH_TEMPLATE_NAMES_H_
