// WeakPtr<T> / WeakPtrFactory<T>: references to an object that its owner may
// destroy first, for tasks posted to a task runner. A task holding a
// WeakPtr checks it when it runs and does nothing if the object is gone.
//
//   class Endpoint {
//     void Notify() {
//       runner_->PostTask([weak = weak_factory_.GetWeakPtr()] {
//         if (weak) weak->DoNotify();
//       });
//     }
//     WeakPtrFactory<Endpoint> weak_factory_{this};  // Last member.
//   };
//
// Thread-safety: single-threaded. Create, dereference and invalidate (the
// factory's destruction) on one thread, the task runner's; WeakPtr copies
// may be moved through other threads' queues. Costs: one shared
// allocation per factory; a copy is a shared_ptr copy.

#ifndef ZT_EXT_BASE_WEAK_PTR_H_
#define ZT_EXT_BASE_WEAK_PTR_H_

#include <memory>

namespace zt {
namespace base {

template <typename T>
class WeakPtr {
 public:
  WeakPtr() = default;
  T* get() const { return token_ ? *token_ : nullptr; }
  T* operator->() const { return get(); }
  T& operator*() const { return *get(); }
  explicit operator bool() const { return get() != nullptr; }

 private:
  template <typename>
  friend class WeakPtrFactory;
  explicit WeakPtr(std::shared_ptr<T*> token) : token_(std::move(token)) {}

  std::shared_ptr<T*> token_;
};

template <typename T>
class WeakPtrFactory {
 public:
  explicit WeakPtrFactory(T* owner) : token_(std::make_shared<T*>(owner)) {}
  ~WeakPtrFactory() { *token_ = nullptr; }
  WeakPtrFactory(const WeakPtrFactory&) = delete;
  WeakPtrFactory& operator=(const WeakPtrFactory&) = delete;

  WeakPtr<T> GetWeakPtr() const { return WeakPtr<T>(token_); }

 private:
  std::shared_ptr<T*> token_;
};

}  // namespace base
}  // namespace zt

#endif  // ZT_EXT_BASE_WEAK_PTR_H_
