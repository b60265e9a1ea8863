// Arg keys as the model writes them ("debug.a.b[2].c": dotted names and
// indices) rebuilt as a tree of nested dictionaries and arrays: what the
// JSON and Perfetto exporters write an arg set as.

#ifndef ZT_SRC_PROCESSOR_EXPORTERS_ARG_TREE_H_
#define ZT_SRC_PROCESSOR_EXPORTERS_ARG_TREE_H_

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace zt {
namespace processor {

struct ArgKeySegment {
  bool is_index = false;
  int64_t index = -1;     // When is_index.
  std::string_view name;  // Otherwise (may be empty).
};

// The segment of `key` at *pos: "[digits]" is an index; anything else is a
// name up to the next '.' or '[' (a '[' that opens no index is part of the
// name). *pos is left on the separator after it (or at the end).
inline ArgKeySegment NextArgKeySegment(std::string_view key, size_t* pos) {
  ArgKeySegment segment;
  size_t name_from = *pos;
  if (*pos < key.size() && key[*pos] == '[') {
    const size_t close = key.find(']', *pos);
    if (close != std::string_view::npos && close > *pos + 1) {
      int64_t index = -1;
      auto res = std::from_chars(key.data() + *pos + 1, key.data() + close, index);
      if (res.ec == std::errc() && res.ptr == key.data() + close && index >= 0) {
        segment.is_index = true;
        segment.index = index;
        *pos = close + 1;
        return segment;
      }
    }
    name_from = *pos + 1;  // A '[' that opens no index.
  }
  size_t end = key.find_first_of(".[", name_from);
  if (end == std::string_view::npos)
    end = key.size();
  segment.name = key.substr(*pos, end - *pos);
  *pos = end;
  return segment;
}

// A node of an arg tree: a leaf holding a value, a dictionary of named
// children, or an array of indexed ones.
template <typename Leaf>
struct ArgTreeNode {
  std::string name;    // As a dictionary member.
  int64_t index = -1;  // As an array element.
  bool is_leaf = false;
  bool is_array = false;
  Leaf leaf{};
  std::vector<ArgTreeNode> children;
};

// Adds `leaf` under `root` at `key`, each name segment kept (and compared)
// as name_of(segment): JSON merges names by their escaped literal, since
// names differing only in invalid UTF-8 become one key. False when the key
// clashes with the tree: a leaf where a dictionary or array is, or the
// reverse; an index among names or a name among indices; an index at the
// root unless `root_may_be_array`. Cost: linear in the key and the
// children of each node on its path.
template <typename Leaf, typename NameOf>
bool AddToArgTree(ArgTreeNode<Leaf>* root, std::string_view key, const Leaf& leaf,
                  bool root_may_be_array, NameOf name_of) {
  ArgTreeNode<Leaf>* node = root;
  size_t pos = 0;
  for (;;) {
    const ArgKeySegment segment = NextArgKeySegment(key, &pos);
    if (node->is_leaf || (!node->children.empty() && node->is_array != segment.is_index) ||
        (node == root && segment.is_index && !root_may_be_array)) {
      return false;
    }
    node->is_array = segment.is_index;
    std::string name;
    if (!segment.is_index)
      name = name_of(segment.name);
    ArgTreeNode<Leaf>* child = nullptr;
    for (ArgTreeNode<Leaf>& c : node->children) {
      if (segment.is_index ? c.index == segment.index : c.name == name) {
        child = &c;
        break;
      }
    }
    if (!child) {
      node->children.emplace_back();
      child = &node->children.back();
      child->name = std::move(name);
      child->index = segment.index;
    }
    node = child;
    if (pos >= key.size())
      break;
    if (key[pos] == '.')
      ++pos;  // Else '[': an index follows.
  }
  if (node->is_leaf || !node->children.empty())
    return false;
  node->is_leaf = true;
  node->leaf = leaf;
  return true;
}

}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_EXPORTERS_ARG_TREE_H_
