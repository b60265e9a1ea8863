// Writes a Widget with the generated pbzero writer, checks the exact bytes,
// then decodes it back. Exits non-zero (with a message) on any mismatch.

#include <cstdio>
#include <string>
#include <vector>

#include "acme/common.pbzero.h"  // the Shape enum widget.proto uses
#include "acme/widget.pbzero.h"
#include "gadget/gadget.gen.h"
#include "gadget/gadget.pbzero.h"
#include "zt/protozero/packed_repeated_fields.h"
#include "zt/protozero/scattered_heap_buffer.h"

namespace {

int g_failures = 0;

template <typename A, typename B>
void Check(const A& actual, const B& expected, const char* what) {
  if (!(actual == expected)) {
    std::fprintf(stderr, "downstream_app: mismatch in %s\n", what);
    ++g_failures;
  }
}

}  // namespace

int main() {
  zt::protozero::HeapBuffered<acme::pbzero::Widget> widget;
  widget->set_id(7);
  widget->set_label("w");
  widget->set_shape(acme::common::pbzero::SHAPE_SQUARE);
  acme::pbzero::Widget::Part* part = widget->add_parts();
  part->set_name("bolt");
  part->set_count(3);
  zt::protozero::PackedVarInt deltas;
  deltas.AppendZigZag(-1);
  deltas.AppendZigZag(2);
  widget->set_deltas(deltas);
  const std::string bytes = widget.SerializeAsString();

  const std::string expected(
      "\x08\x07"                      // id = 7
      "\x12\x01w"                     // label = "w"
      "\x18\x02"                      // shape = SHAPE_SQUARE
      "\x22\x88\x80\x80\x00"          // parts, 8 bytes (redundant varint)
      "\x0a\x04" "bolt"               //   name
      "\x10\x03"                      //   count
      "\x2a\x02\x01\x04",             // deltas, packed zigzag [-1, 2]
      24);
  Check(bytes, expected, "serialized bytes");

  acme::pbzero::Widget::Decoder dec(bytes);
  Check(dec.parse_error(), false, "parse_error");
  Check(dec.id(), uint64_t{7}, "id");
  Check(dec.label(), std::string_view("w"), "label");
  Check(dec.shape(), acme::common::pbzero::SHAPE_SQUARE, "shape");
  Check(std::string(acme::common::pbzero::Shape_Name(dec.shape())),
        std::string("SHAPE_SQUARE"), "shape name");
  int parts = 0;
  for (auto it = dec.parts(); it; ++it, ++parts) {
    acme::pbzero::Widget::Part::Decoder p(*it);
    Check(p.name(), std::string_view("bolt"), "part name");
    Check(p.count(), uint32_t{3}, "part count");
  }
  Check(parts, 1, "number of parts");
  std::vector<int32_t> values;
  bool error = false;
  for (auto it = dec.deltas(&error); it; ++it)
    values.push_back(*it);
  Check(values, std::vector<int32_t>{-1, 2}, "deltas");
  Check(error, false, "deltas parse error");

  // A message from a second library (another proto root) nesting one of
  // the first library's messages.
  zt::protozero::HeapBuffered<gadget::pbzero::Gadget> gadget;
  gadget->set_name("g");
  gadget->set_main_widget()->set_id(7);
  const std::string gadget_bytes = gadget.SerializeAsString();
  gadget::pbzero::Gadget::Decoder gadget_dec(gadget_bytes);
  Check(std::string(gadget_dec.name()), std::string("g"), "gadget name");
  acme::pbzero::Widget::Decoder inner(gadget_dec.main_widget());
  Check(inner.id(), uint64_t{7}, "gadget widget id");

  // The same bytes through the value classes.
  gadget::gen::Gadget parsed;
  Check(parsed.ParseFromString(gadget_bytes), true, "gen parse");
  Check(parsed.name(), std::string("g"), "gen gadget name");
  Check(parsed.main_widget().id(), uint64_t{7}, "gen gadget widget id");

  if (g_failures) {
    std::fprintf(stderr, "downstream_app: %d failure(s)\n", g_failures);
    return 1;
  }
  std::printf("downstream_app: OK (%zu bytes)\n", bytes.size());
  return 0;
}
