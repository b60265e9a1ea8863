// Splits the byte stream a TraceProcessorRpc client sends (on a websocket,
// or in an /rpc body) into messages: each is a length-delimited field, as
// a TraceProcessorRpcStream's repeated `msg` is laid out, independent of
// how the transport cut the bytes (one frame may hold several messages,
// one message may span many frames).
//
// A field that is not length-delimited, a varint over 10 bytes, or a
// message over kMaxMessageBytes (64 MiB, as upstream's server allows) is a
// framing error: the stream cannot be read further, and the reader says
// why. Memory: at most one incomplete message is held (so less than
// kMaxMessageBytes plus its 20-byte header); a message that arrives whole
// in one Append() is handed over in place, without a copy.
// Thread-compatible.

#ifndef ZT_SRC_PROCESSOR_RPC_RPC_STREAM_READER_H_
#define ZT_SRC_PROCESSOR_RPC_RPC_STREAM_READER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace zt {
namespace processor {
namespace rpc {

class RpcStreamReader {
 public:
  static constexpr size_t kMaxMessageBytes = size_t{64} << 20;
  // Gets each complete message's bytes (valid during the call only).
  using MessageFn = std::function<void(std::string_view message)>;

  // Reads `size` more bytes of the stream. Returns false at a framing
  // error (*error says what), after which every call returns false.
  bool Append(const uint8_t* data, size_t size, const MessageFn& on_message,
              std::string* error);

  // Bytes held of a message not yet complete.
  size_t buffered() const { return partial_.size(); }
  bool failed() const { return failed_; }
  // Ends the stream for a reason above its framing (a request out of
  // order): later Append()s fail, and what is held is dropped.
  void Fail() {
    failed_ = true;
    partial_.clear();
  }

 private:
  enum class Parse { kMessage, kNeedMore, kError };
  // Reads one message at the front of [p, end): its bytes in *message and
  // its total size (header included) in *consumed.
  Parse ParseOne(const uint8_t* p, const uint8_t* end, std::string_view* message,
                 size_t* consumed, std::string* error) const;

  std::string partial_;
  bool failed_ = false;
};

}  // namespace rpc
}  // namespace processor
}  // namespace zt

#endif  // ZT_SRC_PROCESSOR_RPC_RPC_STREAM_READER_H_
