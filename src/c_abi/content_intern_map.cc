#include "src/c_abi/content_intern_map.h"

#include <algorithm>

#include "zt/base/logging.h"

namespace zt {
namespace c_abi {

void ContentInternMap::Clear() {
  std::fill(slots_.begin(), slots_.end(), Slot());
  arena_.clear();
  used_ = 0;
  std::fill(next_iid_.begin(), next_iid_.end(), 0);
}

uint64_t ContentInternMap::NextIid(int32_t type) {
  // Field numbers are positive; anything else shares one counter.
  const size_t index = type > 0 && type < (1 << 16) ? static_cast<size_t>(type) : 0;
  if (index >= next_iid_.size())
    next_iid_.resize(index + 1, 0);
  return ++next_iid_[index];
}

uint64_t ContentInternMap::Assign(Slot* slot, uint64_t hash, int32_t type, const void* data,
                                  size_t size) {
  // The arena is addressed with 32-bit offsets: 4 GiB of names per
  // sequence is far past any trace (a clear resets it).
  ZT_CHECK(arena_.size() + size < (uint64_t{1} << 32));
  slot->hash = hash;
  slot->type = type;
  slot->offset = static_cast<uint32_t>(arena_.size());
  slot->size = size;
  slot->iid = NextIid(type);
  arena_.append(static_cast<const char*>(data), size);
  const uint64_t iid = slot->iid;
  if (++used_ * 2 > slots_.size())
    Grow();  // |slot| is stale from here.
  return iid;
}

void ContentInternMap::Grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.hash == 0)
      continue;
    size_t i = static_cast<size_t>(slot.hash >> 32) & mask;
    while (slots_[i].hash != 0)
      i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

}  // namespace c_abi
}  // namespace zt
