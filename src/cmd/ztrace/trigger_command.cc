#include "src/cmd/ztrace/trigger_command.h"

#include <stdio.h>

#include <memory>
#include <utility>

#include "src/cmd/ztrace/command_runner.h"
#include "src/cmd/ztrace/record_config.h"
#include "src/ipc/service_identity.h"

namespace zt {
namespace ztrace {
namespace {

// How long the service has to take the triggers, connection included.
constexpr uint32_t kTriggerTimeoutMs = 10000;

// Connects, sends the triggers once connected, and reports the outcome
// once (|finish|): the service's answer, a lost connection, or the timeout.
class TriggerProducer : public Producer {
 public:
  TriggerProducer(base::TaskRunner* runner, std::vector<std::string> names,
                  std::string address, std::function<void(int)> finish)
      : runner_(runner),
        names_(std::move(names)),
        address_(std::move(address)),
        end_("ztrace trigger", std::move(finish)) {}

  void Start(const ConnectProducerFn& connect) {
    TracingService::ProducerOptions options;
    options.name = "ztrace";
    endpoint_ = connect(this, runner_, options);
    if (!endpoint_)
      return Fail("cannot connect to the tracing service: " +
                  ipc::DescribeServiceConnectFailure(address_));
    runner_->PostDelayedTask(
        [this] {
          Fail("the tracing service at " + address_ + " did not answer within " +
               std::to_string(kTriggerTimeoutMs / 1000) + " s");
        },
        kTriggerTimeoutMs);
  }

  void OnConnect() override {
    connected_ = true;
    endpoint_->ActivateTriggers(names_, [this](bool ok) {
      if (!ok)
        return Fail("the tracing service at " + address_ + " did not take the triggers");
      end_.Finish(kExitOk);
    });
  }
  void OnDisconnect() override {
    if (!connected_)
      return Fail("cannot reach the tracing service: " +
                  ipc::DescribeServiceConnectFailure(address_));
    Fail("lost the tracing service at " + address_ + " before it took the triggers");
  }
  void OnTracingSetup() override {}
  void SetupDataSource(DataSourceInstanceId, const protos::gen::DataSourceConfig&) override {}
  void StartDataSource(DataSourceInstanceId, const protos::gen::DataSourceConfig&) override {}
  void StopDataSource(DataSourceInstanceId) override {}
  void Flush(FlushRequestId, const std::vector<DataSourceInstanceId>&) override {}
  void ClearIncrementalState(const std::vector<DataSourceInstanceId>&) override {}

 private:
  void Fail(const std::string& message) { end_.Fail(message); }

  base::TaskRunner* const runner_;
  const std::vector<std::string> names_;
  const std::string address_;
  bool connected_ = false;
  CommandEnd end_;
  std::unique_ptr<ProducerEndpoint> endpoint_;
};

}  // namespace

std::string TriggerUsage() {
  return R"(Usage: ztrace trigger NAME...

Activates the triggers NAME... in the tracing service (ztraced, or Perfetto's
traced), as Perfetto's trigger_perfetto does: a session whose config lists
one of them in trigger_config starts (START_TRACING) or stops after the
trigger's stop_delay_ms (STOP_TRACING), and its trace records the trigger.
Names no session lists are ignored by the service.

Exit status: 0 once the service has taken the triggers, 1 if it is not
running or does not answer within 10 s, 2 on a bad command line. The
service's socket is $PERFETTO_PRODUCER_SOCK_NAME if set.

Example: ztrace trigger slow_frame
)";
}

int RunTrigger(const std::vector<std::string>& args, const ConnectProducerFn& connect,
               const std::string& address) {
  std::vector<std::string> names;
  for (const std::string& arg : args) {
    if (arg == "-h" || arg == "--help") {
      fputs(TriggerUsage().c_str(), stdout);
      return kExitOk;
    }
    if (arg.empty() || arg[0] == '-') {
      fprintf(stderr, "ztrace trigger: unknown option \"%s\"\n\n%s", arg.c_str(),
              TriggerUsage().c_str());
      return kExitUsage;
    }
    names.push_back(arg);
  }
  if (names.empty()) {
    fprintf(stderr, "ztrace trigger: name at least one trigger\n\n%s", TriggerUsage().c_str());
    return kExitUsage;
  }
  return RunUntilFinished(
      [&](base::TaskRunner* runner, std::function<void(int)> finish) {
        return std::make_unique<TriggerProducer>(runner, std::move(names), address,
                                                 std::move(finish));
      },
      [&connect](std::unique_ptr<TriggerProducer>& producer) { producer->Start(connect); });
}

}  // namespace ztrace
}  // namespace zt
