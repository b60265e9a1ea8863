#include "zt/protozero/field.h"

namespace zt {
namespace protozero {

void Field::SerializeAndAppendTo(std::string* dst) const {
  if (!valid())
    return;
  uint8_t buf[proto_utils::kMaxSimpleFieldEncodedSize];
  uint8_t* pos = proto_utils::WriteVarInt(proto_utils::MakeTag(id(), type()), buf);
  switch (type()) {
    case ProtoWireType::kVarInt:
      pos = proto_utils::WriteVarInt(int_value_, pos);
      break;
    case ProtoWireType::kFixed32:
      proto_utils::WriteFixed(static_cast<uint32_t>(int_value_), pos);
      pos += 4;
      break;
    case ProtoWireType::kFixed64:
      proto_utils::WriteFixed(int_value_, pos);
      pos += 8;
      break;
    case ProtoWireType::kLengthDelimited:
      pos = proto_utils::WriteVarInt(size_, pos);
      break;
  }
  dst->append(reinterpret_cast<const char*>(buf), static_cast<size_t>(pos - buf));
  if (type() == ProtoWireType::kLengthDelimited)
    dst->append(reinterpret_cast<const char*>(data()), size());
}

}  // namespace protozero
}  // namespace zt
