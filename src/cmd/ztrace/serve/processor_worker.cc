#include "src/cmd/ztrace/serve/processor_worker.h"

#include <pthread.h>
#include <signal.h>

#include <utility>

namespace zt {
namespace ztrace {
namespace serve {

ProcessorWorker::ProcessorWorker(std::function<void(uint64_t, uint64_t)> import_progress) {
  session_.SetImportProgress(std::move(import_progress));
  session_.SetInterruptCheck([this] { return current_gate_ && current_gate_->closed(); });
  UpdateStatus();
  thread_ = std::thread([this] {
    // Stop signals are the server's (its io thread): never this thread's,
    // nor those it starts, whatever disposition they meet.
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);
    Loop();
  });
}

ProcessorWorker::~ProcessorWorker() { Stop(); }

void ProcessorWorker::Stop() {
  std::lock_guard<std::mutex> stop_lock(stop_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  posted_.notify_all();
  if (thread_.joinable())
    thread_.join();
  std::deque<Job> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    dropped.swap(jobs_);
  }
}

bool ProcessorWorker::LoadFile(const std::string& path, std::string* error) {
  // The thread is idle (nothing was posted yet), so the session is ours.
  std::lock_guard<std::mutex> lock(mu_);
  const bool ok = session_.LoadFile(path, error);
  status_ = session_.StatusBytes();
  return ok;
}

void ProcessorWorker::Post(std::shared_ptr<OutputGate> gate, JobFn job,
                           std::function<void()> skipped) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(Job{std::move(gate), std::move(job), std::move(skipped)});
  }
  posted_.notify_one();
}

std::string ProcessorWorker::StatusBytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

size_t ProcessorWorker::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return jobs_.size() + (running_job_ ? 1 : 0);
}

void ProcessorWorker::UpdateStatus() {
  std::string status = session_.StatusBytes();
  std::lock_guard<std::mutex> lock(mu_);
  status_ = std::move(status);
}

void ProcessorWorker::Loop() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      posted_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_)
        return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      running_job_ = true;
    }
    if (job.gate && job.gate->closed()) {
      if (job.skipped)
        job.skipped();
    } else {
      current_gate_ = job.gate;
      job.run(&session_);
      current_gate_.reset();
      UpdateStatus();
    }
    std::lock_guard<std::mutex> lock(mu_);
    running_job_ = false;
  }
}

}  // namespace serve
}  // namespace ztrace
}  // namespace zt
