// zt::DataSource<T>: a custom source of trace data. Derive from it, register
// it once, and write packets from any thread with Trace():
//
//   class MySource : public zt::DataSource<MySource> {
//    public:
//     void OnStart(const StartArgs&) override { ... }
//   };
//
//   #include "zt/common/data_source_descriptor.gen.h"   // where you register
//   zt::protos::gen::DataSourceDescriptor desc;
//   desc.set_name("com.example.my_source");
//   MySource::Register(desc);
//   ...
//   MySource::Trace([](MySource::TraceContext ctx) {
//     auto packet = ctx.NewTracePacket();
//     packet->set_timestamp(...);
//   });
//
// While no session has the data source enabled, Trace() costs one relaxed
// atomic load and a branch. Each session enabling it gets its own instance
// (a T object, up to 8 at once); the lambda runs once per active instance,
// with a TraceWriter of that instance owned by the calling thread.
//
// Cost of including: this header declares the config and descriptor classes
// without defining them, so a file that only writes packets parses the
// TracePacket writer and the standard headers it needs, nothing more. Read
// the config in OnSetup with "zt/config/data_source_config.gen.h", and
// include the writer header of every payload you write (e.g.
// "zt/trace/test_event.pbzero.h" for packet->set_for_testing()).

#ifndef ZT_TRACING_DATA_SOURCE_H_
#define ZT_TRACING_DATA_SOURCE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>

#include "zt/tracing/buffer_exhausted_policy.h"
#include "zt/tracing/internal/data_source_internal.h"

namespace zt {
namespace protos {
namespace gen {
class DataSourceConfig;
class DataSourceDescriptor;
}  // namespace gen
}  // namespace protos

// The callbacks of one instance. They run on the tracing service's thread,
// with the instance's lock held: keep them short. They may call Trace()
// (e.g. to write final state in OnStop or OnFlush); a data source that does
// should use kDrop, since the service thread cannot wait for itself to free
// shared memory.
class DataSourceBase {
 public:
  virtual ~DataSourceBase();

  struct SetupArgs {
    const protos::gen::DataSourceConfig* config = nullptr;
    uint32_t internal_instance_index = 0;
  };
  struct StartArgs {
    uint32_t internal_instance_index = 0;
  };
  class StopArgs {
   public:
    virtual ~StopArgs();
    // Defers the end of the stop: the session waits (up to its stop
    // timeout) until the returned closure runs. Call it once, from any
    // thread, when the last data is written and flushed.
    virtual std::function<void()> HandleStopAsynchronously() const = 0;
    uint32_t internal_instance_index = 0;
  };
  class FlushArgs {
   public:
    virtual ~FlushArgs();
    // Defers the flush's answer: the session's flush completes only once
    // the returned closure runs (or fails at its timeout). Call it once,
    // from any thread, when what the flush asks for is written (Trace()
    // and TraceContext::Flush() from that thread first).
    virtual std::function<void()> HandleFlushAsynchronously() const = 0;
    uint32_t internal_instance_index = 0;
  };

  // Called on the SDK's thread. They must not throw: the SDK is built
  // without exceptions, so an exception would cross frames that do not
  // unwind, and the process ends. Trace() already writes into the instance
  // when OnStart runs (what OnStart writes, or threads it wakes write, is
  // kept), and still does while OnStop runs.
  virtual void OnSetup(const SetupArgs&) {}
  virtual void OnStart(const StartArgs&) {}
  virtual void OnStop(const StopArgs&) {}
  virtual void OnFlush(const FlushArgs&) {}
};

// Per data source type options. Derive and override what differs.
struct DefaultDataSourceTraits {
  // State per instance and per thread, reset when the service asks to clear
  // incremental state (void: none). Must be default-constructible.
  using IncrementalStateType = void;
  // State per instance and per thread, kept for the instance's life.
  using TlsStateType = void;
};

template <typename DataSourceType, typename Traits = DefaultDataSourceTraits>
class DataSource : public DataSourceBase {
 public:
  // What to do when the shared memory buffer is full: drop (default; the
  // loss is counted and marked in the trace) or stall the writing thread
  // until the service frees a chunk (up to 1 s, then drop). A T may declare
  // its own kBufferExhaustedPolicy.
  static constexpr BufferExhaustedPolicy kBufferExhaustedPolicy =
      BufferExhaustedPolicy::kDrop;

  // The data source object of an instance, locked while the handle lives.
  class LockedHandle {
   public:
    LockedHandle() = default;
    LockedHandle(std::unique_lock<std::recursive_mutex> lock, DataSourceType* ds)
        : lock_(std::move(lock)), ds_(ds) {}
    DataSourceType* operator->() const { return ds_; }
    DataSourceType& operator*() const { return *ds_; }
    explicit operator bool() const { return ds_ != nullptr; }

   private:
    std::unique_lock<std::recursive_mutex> lock_;
    DataSourceType* ds_ = nullptr;
  };

  class TraceContext {
   public:
    // A packet in this instance's sequence; finalized when the handle dies.
    TraceWriter::TracePacketHandle NewTracePacket() {
      return tls_->trace_writer->NewTracePacket();
    }
    // Hands this thread's partly filled chunk to the service now. Without
    // it, a thread's current chunk reaches the service when it fills, when
    // the thread exits, or by scraping at flush and stop; scraping takes
    // every packet but the thread's last one (which could still grow).
    // Not while a packet from NewTracePacket() is still open (its handle
    // alive): that aborts with a message, in every build, since the chunk
    // would leave with the packet unfinished.
    void Flush() { tls_->trace_writer->Flush(); }

    // This thread's incremental state for the instance: created on first
    // use, recreated after the service asked to clear incremental state.
    template <typename T = Traits>
    typename T::IncrementalStateType* GetIncrementalState() {
      using State = typename T::IncrementalStateType;
      static_assert(!std::is_void<State>::value,
                    "declare IncrementalStateType in the data source traits");
      const uint32_t gen =
          instance_->incremental_generation.load(std::memory_order_acquire);
      if (!tls_->incremental_state || tls_->incremental_generation != gen) {
        tls_->incremental_state = std::make_shared<State>();
        tls_->incremental_generation = gen;
      }
      return static_cast<State*>(tls_->incremental_state.get());
    }

    // This thread's custom state for the instance, created on first use.
    template <typename T = Traits>
    typename T::TlsStateType& GetCustomTlsState() {
      using State = typename T::TlsStateType;
      static_assert(!std::is_void<State>::value,
                    "declare TlsStateType in the data source traits");
      if (!tls_->custom_state)
        tls_->custom_state = std::make_shared<State>();
      return *static_cast<State*>(tls_->custom_state.get());
    }

    // Locks the instance and returns its data source object; empty if the
    // instance stopped since Trace() started this call.
    LockedHandle GetDataSourceLocked() {
      std::unique_lock<std::recursive_mutex> lock(instance_->lock);
      if (instance_->generation.load(std::memory_order_acquire) !=
              tls_->generation ||
          !instance_->data_source) {
        return LockedHandle();
      }
      return LockedHandle(
          std::move(lock),
          static_cast<DataSourceType*>(instance_->data_source));
    }

    uint32_t instance_index() const { return index_; }

    // This thread's writer for the instance, for a data source that keeps
    // a packet open between calls (in its TLS state, which is destroyed
    // before the writer).
    TraceWriter* trace_writer() const { return tls_->trace_writer.get(); }

    // How many packets this thread's writer for the instance dropped so
    // far. Incremental state written in a dropped packet is lost with it:
    // a data source that interns should clear its state when this
    // changes.
    uint64_t writer_packets_dropped() const {
      return tls_->trace_writer->stats().packets_dropped;
    }

   private:
    friend class DataSource;
    TraceContext(internal::DataSourceInstanceState* instance,
                 internal::DataSourceInstanceThreadLocalState* tls,
                 uint32_t index)
        : instance_(instance), tls_(tls), index_(index) {}

    internal::DataSourceInstanceState* instance_;
    internal::DataSourceInstanceThreadLocalState* tls_;
    uint32_t index_;
  };

  // Calls |fn(TraceContext)| once per active instance. One relaxed atomic
  // load when there is none. Thread-safe; not reentrant for the same type.
  template <typename Lambda>
  static void Trace(Lambda fn) {
    const uint32_t valid =
        static_state_.valid_instances.load(std::memory_order_relaxed);
    if (ZT_LIKELY(valid == 0))
      return;
    TraceWithInstances(fn, ~0u);
  }

  // As Trace(), for the active instances whose bit is set in |mask| only
  // (bit i: instance index i).
  template <typename Lambda>
  static void TraceInstances(uint32_t mask, Lambda fn) {
    TraceWithInstances(fn, mask);
  }

  // Makes the data source known to the tracing service. Tracing must be
  // initialized. False if the name is empty or taken. Thread-safe.
  static bool Register(const protos::gen::DataSourceDescriptor& descriptor) {
    internal::TracingMuxer* muxer = internal::TracingMuxer::Get();
    if (!muxer)
      return false;
    return muxer->RegisterDataSource(
        descriptor,
        [] { return std::unique_ptr<DataSourceBase>(new DataSourceType()); },
        &static_state_);
  }

 protected:
  // Which instances are active (valid_instances), for a derived data
  // source's own fast path.
  static const internal::DataSourceStaticState& static_state() {
    return static_state_;
  }

 private:
  template <typename Lambda>
  ZT_NOINLINE static void TraceWithInstances(Lambda& fn, uint32_t mask) {
    // Acquire: the slots' fields were written before their bits were set.
    const uint32_t valid =
        static_state_.valid_instances.load(std::memory_order_acquire) & mask;
    internal::DataSourceThreadLocalState* tls_state = tls_state_;
    if (ZT_UNLIKELY(!tls_state))
      tls_state = internal::CreateThreadLocalState(&tls_state_);
    for (uint32_t i = 0; i < internal::kMaxDataSourceInstances; i++) {
      if (!(valid & (1u << i)))
        continue;
      internal::DataSourceInstanceThreadLocalState& tls = tls_state->instances[i];
      if (!internal::EnsureInstanceWriter(&static_state_, i, &tls,
                                          DataSourceType::kBufferExhaustedPolicy))
        continue;
      fn(TraceContext(&static_state_.instances[i], &tls, i));
    }
  }

  static internal::DataSourceStaticState static_state_;
  // Trivially destructible: see internal::CreateThreadLocalState().
  static thread_local internal::DataSourceThreadLocalState* tls_state_;
};

template <typename D, typename T>
internal::DataSourceStaticState DataSource<D, T>::static_state_;
template <typename D, typename T>
thread_local internal::DataSourceThreadLocalState* DataSource<D, T>::tls_state_ = nullptr;

}  // namespace zt

#endif  // ZT_TRACING_DATA_SOURCE_H_
