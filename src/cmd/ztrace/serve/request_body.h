// A Beast body for `ztrace serve`'s requests whose storage outlives the
// request and is reused by the next one: a trace sent to /parse comes in
// pieces of 32 MiB, and a fresh string for each cost a new mapping, 8,192
// page faults the kernel zero-fills, a second zero-fill by the string and
// an unmapping, per piece: on a 1 GB trace, more than the copy of the
// bytes themselves (docs/benchmarks.md, "ztrace serve").
//
// RequestBytes is the storage: grown, never shrunk, never zero-filled.
// RequestBody::value_type is a shared pointer to it, so that the body can
// go to the processor thread with the job that reads it and come back
// free for the next request once that job has let go of it
// (RequestBytesPool).
//
// Private to rpc_server.cc, like the sessions (Beast is compiled there).
// Thread-compatible: a RequestBytes is used by one thread at a time, and
// the pool only on the I/O thread.

#ifndef ZT_SRC_CMD_ZTRACE_SERVE_REQUEST_BODY_H_
#define ZT_SRC_CMD_ZTRACE_SERVE_REQUEST_BODY_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/optional.hpp>

namespace zt {
namespace ztrace {
namespace serve {
namespace rpc_server_internal {

class RequestBytes {
 public:
  const uint8_t* data() const { return storage_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  std::string_view view() const {
    return std::string_view(reinterpret_cast<const char*>(storage_.get()), size_);
  }

  void Clear() { size_ = 0; }
  // Room for `total` bytes in all, exactly when it must grow (a body
  // whose length is known).
  void Reserve(size_t total) {
    if (total > capacity_)
      Grow(total);
  }
  // Room for `extra` more bytes past size() (existing bytes kept), then
  // the pointer to write them to; AppendDone(extra) once written. Grows
  // the storage to at least twice its size, so that a body of unknown
  // length costs amortised O(1) per byte.
  uint8_t* AppendSpace(size_t extra) {
    if (extra > capacity_ - size_) {
      const size_t doubled = capacity_ ? capacity_ * 2 : 4096;
      Grow(std::max(doubled, size_ + extra));
    }
    return storage_.get() + size_;
  }
  void AppendDone(size_t extra) { size_ += extra; }

 private:
  void Grow(size_t capacity) {
    std::unique_ptr<uint8_t[]> grown(new uint8_t[capacity]);  // Not zero-filled.
    if (size_ > 0)
      memcpy(grown.get(), storage_.get(), size_);
    storage_ = std::move(grown);
    capacity_ = capacity;
  }

  std::unique_ptr<uint8_t[]> storage_;
  size_t capacity_ = 0;
  size_t size_ = 0;
};

// Keeps the storage of the largest body lately read for the next request
// of any connection. At most one is kept: its memory is one request's
// largest body (ServeOptions::max_body_bytes), however many connections.
class RequestBytesPool {
 public:
  // Storage no one else holds, emptied; new storage when the kept one is
  // still with a job (or none is kept yet).
  std::shared_ptr<RequestBytes> Take() {
    if (kept_ && kept_.use_count() == 1) {
      // The job that held it let go on another thread: what it did with
      // the bytes happens before what this thread does next (use_count()
      // reads the count relaxed; the job's release of it pairs with this).
      std::atomic_thread_fence(std::memory_order_acquire);
      std::shared_ptr<RequestBytes> bytes = std::move(kept_);
      kept_.reset();
      bytes->Clear();
      return bytes;
    }
    return std::make_shared<RequestBytes>();
  }
  // Offers storage back once its request has been read; the larger of it
  // and the one kept stays. Its job may still hold it: Take() waits for
  // the job to let go before it reuses it.
  void Keep(const std::shared_ptr<RequestBytes>& bytes) {
    if (bytes && (!kept_ || bytes->capacity() >= kept_->capacity()))
      kept_ = bytes;
  }

 private:
  std::shared_ptr<RequestBytes> kept_;
};

// The Body concept of Beast's parser (reading only).
struct RequestBody {
  using value_type = std::shared_ptr<RequestBytes>;

  class reader {
   public:
    template <bool isRequest, class Fields>
    reader(boost::beast::http::header<isRequest, Fields>&, value_type& body) : body_(body) {}

    void init(const boost::optional<uint64_t>& content_length, boost::beast::error_code& ec) {
      if (!body_)
        body_ = std::make_shared<RequestBytes>();
      // The parser's body limit was checked against the length already.
      if (content_length)
        body_->Reserve(body_->size() + static_cast<size_t>(*content_length));
      ec = {};
    }

    template <class ConstBufferSequence>
    size_t put(const ConstBufferSequence& buffers, boost::beast::error_code& ec) {
      const size_t extra = boost::beast::buffer_bytes(buffers);
      uint8_t* to = body_->AppendSpace(extra);
      for (const auto buffer : boost::beast::buffers_range_ref(buffers)) {
        memcpy(to, buffer.data(), buffer.size());
        to += buffer.size();
      }
      body_->AppendDone(extra);
      ec = {};
      return extra;
    }

    void finish(boost::beast::error_code& ec) { ec = {}; }

   private:
    value_type& body_;
  };
};

}  // namespace rpc_server_internal
}  // namespace serve
}  // namespace ztrace
}  // namespace zt

#endif  // ZT_SRC_CMD_ZTRACE_SERVE_REQUEST_BODY_H_
