// The producer port's side of the commit queue (docs/design/commit_queue.md)
// with raw frames over real sockets: the setup and its refusals, records
// applied on the doorbell, their order against the producer's socket
// messages, and a corrupt ring. A flush is what makes a record visible: the
// consumer's Flush is answered only once the producer's acknowledgement (a
// CommitData naming it) is applied.

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "src/base/memfd_shared_memory.h"
#include "src/base/scoped_file.h"
#include "src/ipc/client.h"
#include "src/tracing/ipc/commit_queue.h"
#include "src/tracing/ipc/commit_record.h"
#include "src/tracing/ipc/port_test_fixture.h"
#include "zt/ext/tracing/core/commit_data.h"
#include "zt/ext/tracing/core/commit_data_codec.h"
#include "zt/ipc/consumer_port.gen.h"
#include "zt/ipc/producer_port.gen.h"

namespace zt {
namespace {

using protos::gen::GetAsyncCommandResponse;

class CommitQueuePortTest : public PortTest {
 protected:
  // A producer with data source "ds", its command stream recorded, and a
  // consumer whose session has an instance of it.
  void SetUp() override {
    PortTest::SetUp();
    producer_ = Bind(host_->producer_host(), "ProducerPort");
    protos::gen::InitializeConnectionRequest init;
    init.set_producer_name("queue.producer");
    ASSERT_TRUE(CallAndWait(producer_, "InitializeConnection", init.SerializeAsString()));
    producer_->Invoke("GetAsyncCommand", "", [this](ipc::Client::Response r) {
      GetAsyncCommandResponse command;
      if (command.ParseFromString(r.reply_proto))
        commands_.push_back(command);
    });
    protos::gen::RegisterDataSourceRequest reg;
    reg.mutable_data_source_descriptor()->set_name("ds");
    ASSERT_TRUE(CallAndWait(producer_, "RegisterDataSource", reg.SerializeAsString()));
    messages_sent_ = 3;  // InitializeConnection, GetAsyncCommand, RegisterDataSource.

    consumer_ = Bind(host_->consumer_host(), "ConsumerPort");
    protos::gen::EnableTracingRequest enable;
    enable.mutable_trace_config()->add_buffers()->set_size_kb(64);
    enable.mutable_trace_config()->add_data_sources()->mutable_config()->set_name("ds");
    consumer_->Invoke("EnableTracing", enable.SerializeAsString(), [](ipc::Client::Response) {});
    ASSERT_TRUE(runner_.RunUntil([&] {
      for (const auto& c : commands_)
        if (c.has_start_data_source())
          return true;
      return false;
    })) << "the data source was never started";
  }

  // Sends ZtSetupCommitQueue with |shm| (if any) asking for |size| bytes.
  bool SetUpQueue(base::MemfdSharedMemory* shm, uint32_t size,
                  uint32_t version = kCommitRecordVersion) {
    protos::gen::ZtSetupCommitQueueRequest req;
    req.set_size_bytes(size);
    req.set_record_version(version);
    base::ScopedFile doorbell;
    const bool ok = CallAndWait(producer_, "ZtSetupCommitQueue", req.SerializeAsString(),
                                nullptr, shm ? shm->fd() : -1, &doorbell);
    messages_sent_++;
    if (ok && doorbell) {
      doorbell_ = std::move(doorbell);
      writer_.reset(new CommitQueueWriter(shm->start(), shm->size(), doorbell_.get()));
    }
    return ok && writer_;
  }

  // The consumer asks for a flush; returns the request id the producer got.
  uint64_t StartFlush() {
    flush_answered_ = false;
    protos::gen::FlushRequest flush;
    flush.set_timeout_ms(60000);
    consumer_->Invoke("Flush", flush.SerializeAsString(), [this](ipc::Client::Response r) {
      flush_answered_ = true;
      flush_succeeded_ = r.success;
    });
    uint64_t id = 0;
    EXPECT_TRUE(runner_.RunUntil([&] {
      for (const auto& c : commands_)
        if (c.has_flush())
          id = c.flush().request_id();
      return id != 0;
    })) << "the producer was never asked to flush";
    commands_.clear();
    return id;
  }

  // A ring record acknowledging flush |id|.
  std::string FlushAck(uint64_t id) {
    CommitData ack;
    ack.flush_request_id = id;
    std::string record;
    EncodeCommitRecord(ack, &record);
    return record;
  }

  ipc::Client* producer_ = nullptr;
  ipc::Client* consumer_ = nullptr;
  std::vector<GetAsyncCommandResponse> commands_;
  uint32_t messages_sent_ = 0;
  std::unique_ptr<base::MemfdSharedMemory> shm_ = base::MemfdSharedMemory::Create(kCommitQueueBytes);
  base::ScopedFile doorbell_;
  std::unique_ptr<CommitQueueWriter> writer_;
  bool flush_answered_ = false;
  bool flush_succeeded_ = false;
};

TEST_F(CommitQueuePortTest, ARecordIsAppliedOnTheDoorbell) {
  ASSERT_TRUE(SetUpQueue(shm_.get(), kCommitQueueBytes));
  const uint64_t id = StartFlush();
  const std::string ack = FlushAck(id);
  ASSERT_TRUE(writer_->Write(ack.data(), ack.size(), messages_sent_));
  EXPECT_EQ(writer_->doorbells_rung(), 1u) << "an idle service must be woken";
  ASSERT_TRUE(runner_.RunUntil([&] { return flush_answered_; })) << "the ack was never applied";
  EXPECT_TRUE(flush_succeeded_);
  EXPECT_TRUE(writer_->Drained());
  EXPECT_EQ(host_->producer_port_stats().commits_by_queue, 1u);
  EXPECT_EQ(host_->producer_port_stats().commits_by_message, 0u);
  EXPECT_EQ(host_->producer_port_stats().queues_set_up, 1u);
}

TEST_F(CommitQueuePortTest, ARecordWaitsForTheSocketMessagesBeforeIt) {
  ASSERT_TRUE(SetUpQueue(shm_.get(), kCommitQueueBytes));
  const uint64_t id = StartFlush();
  // Made after a message the service has not seen yet (the Sync below).
  const std::string ack = FlushAck(id);
  ASSERT_TRUE(writer_->Write(ack.data(), ack.size(), messages_sent_ + 1));
  runner_.RunUntilIdle();
  EXPECT_FALSE(flush_answered_) << "applied before the message it came after";
  EXPECT_FALSE(writer_->Drained());
  ASSERT_TRUE(CallAndWait(producer_, "Sync", ""));
  ASSERT_TRUE(runner_.RunUntil([&] { return flush_answered_; }));
  EXPECT_TRUE(flush_succeeded_);
  EXPECT_TRUE(writer_->Drained());
}

TEST_F(CommitQueuePortTest, AMessageAppliesTheRecordsMadeBeforeIt) {
  ASSERT_TRUE(SetUpQueue(shm_.get(), kCommitQueueBytes));
  const uint64_t id = StartFlush();
  // The doorbell is never read here: the next message drains the ring
  // before it is handled, so Sync's answer finds the flush done.
  const std::string ack = FlushAck(id);
  ASSERT_TRUE(writer_->Write(ack.data(), ack.size(), messages_sent_));
  ASSERT_TRUE(CallAndWait(producer_, "Sync", ""));
  EXPECT_TRUE(writer_->Drained());
}

TEST_F(CommitQueuePortTest, RecordsInQuickSuccessionArePolledWithoutDoorbells) {
  ASSERT_TRUE(SetUpQueue(shm_.get(), kCommitQueueBytes));
  const ProducerPortStats& stats = host_->producer_port_stats();
  std::string empty;
  EncodeCommitRecord(CommitData(), &empty);
  uint64_t written = 0;
  // |n| records back to back (the service does not run in between), then
  // the service runs until it has read them.
  auto write_and_drain = [&](int n) {
    for (int i = 0; i < n; i++)
      EXPECT_TRUE(writer_->Write(empty.data(), empty.size(), messages_sent_));
    written += static_cast<uint64_t>(n);
    return runner_.RunUntil([&] { return writer_->Drained(); });
  };
  // One record per wake-up: the doorbell, and no polling.
  ASSERT_TRUE(write_and_drain(1));
  EXPECT_EQ(writer_->doorbells_rung(), 1u);
  EXPECT_EQ(stats.queue_polls_started, 0u) << "polled for a lone record";
  // Two found at once: the ring stays busy and is looked at from a timer.
  const uint64_t rung = writer_->doorbells_rung() + 1;
  ASSERT_TRUE(write_and_drain(2)) << "two records were never applied";
  ASSERT_EQ(writer_->doorbells_rung(), rung);
  ASSERT_EQ(stats.queue_polls_started, 1u) << "two records at once did not start polling";
  // While each look finds two, records are applied with no doorbell.
  const uint64_t looks = stats.queue_poll_wakeups;
  for (int i = 0; i < 10; i++)
    ASSERT_TRUE(write_and_drain(2)) << "records written while polling were never applied";
  EXPECT_EQ(writer_->doorbells_rung(), rung) << "rung a polling service";
  EXPECT_GE(stats.queue_poll_wakeups, looks + 10);
  EXPECT_EQ(stats.queue_polls_started, 1u);
  // A look that finds one record ends polling: the ring is idle again, and
  // the next record rings the doorbell (else it would wait for ever).
  ASSERT_TRUE(write_and_drain(1));
  EXPECT_EQ(writer_->doorbells_rung(), rung) << "rung a polling service";
  ASSERT_TRUE(write_and_drain(1)) << "a record after polling ended was never applied";
  EXPECT_EQ(writer_->doorbells_rung(), rung + 1) << "polling ended but the ring was not idle";
  EXPECT_EQ(stats.commits_by_queue, written);
}

TEST_F(CommitQueuePortTest, WhatAFullRingCannotTakeGoesAsAMessageAfterItsRecords) {
  ASSERT_TRUE(SetUpQueue(shm_.get(), kCommitQueueBytes));
  const uint64_t id = StartFlush();
  // Filled without the service running, as a producer outpacing it would.
  std::string empty;
  EncodeCommitRecord(CommitData(), &empty);
  uint64_t records = 0;
  while (writer_->Write(empty.data(), empty.size(), messages_sent_))
    records++;
  ASSERT_GT(records, 1000u);
  CommitData ack;
  ack.flush_request_id = id;
  producer_->Invoke("CommitData", SerializeCommitData(ack), nullptr, /*drop_reply=*/true);
  ASSERT_TRUE(runner_.RunUntil([&] { return flush_answered_; }));
  EXPECT_TRUE(flush_succeeded_);
  // The message came after every record, and found them applied.
  EXPECT_TRUE(writer_->Drained());
  EXPECT_EQ(host_->producer_port_stats().commits_by_queue, records);
  EXPECT_EQ(host_->producer_port_stats().commits_by_message, 1u);
}

TEST_F(CommitQueuePortTest, ARecordThatDoesNotDecodeClosesTheQueueAndCountsTheRest) {
  ASSERT_TRUE(SetUpQueue(shm_.get(), kCommitQueueBytes));
  ASSERT_TRUE(writer_->Write("not a record", 12, messages_sent_));
  const std::string ack = FlushAck(1);
  ASSERT_TRUE(writer_->Write(ack.data(), ack.size(), messages_sent_));
  runner_.RunUntilIdle();
  // Both ends agreed on the layout: the producer is broken, its queue goes.
  EXPECT_EQ(host_->producer_port_stats().queues_closed, 1u);
  EXPECT_EQ(host_->producer_port_stats().commits_by_queue, 0u);
  EXPECT_EQ(host_->producer_port_stats().queue_bytes_lost, kCommitRecordHeaderBytes + ack.size());
  EXPECT_FALSE(writer_->Write(ack.data(), ack.size(), messages_sent_));
  EXPECT_TRUE(writer_->closed());
}

TEST_F(CommitQueuePortTest, ACorruptRingIsClosedAndTheProducerKeepsItsConnection) {
  ASSERT_TRUE(SetUpQueue(shm_.get(), kCommitQueueBytes));
  const std::string ack = FlushAck(1);
  ASSERT_TRUE(writer_->Write(ack.data(), ack.size(), messages_sent_));
  // A producer scribbling on its size field: larger than what it published.
  const uint32_t size = 60000;
  memcpy(shm_->start() + kCommitQueueHeaderBytes, &size, sizeof(size));
  runner_.RunUntilIdle();
  EXPECT_EQ(host_->producer_port_stats().queues_closed, 1u);
  EXPECT_FALSE(writer_->Write(ack.data(), ack.size(), messages_sent_));
  EXPECT_TRUE(writer_->closed());
  // Messages still work: the flush is answered through CommitData.
  const uint64_t id = StartFlush();
  CommitData real_ack;
  real_ack.flush_request_id = id;
  producer_->Invoke("CommitData", SerializeCommitData(real_ack), nullptr, /*drop_reply=*/true);
  ASSERT_TRUE(runner_.RunUntil([&] { return flush_answered_; }));
  EXPECT_TRUE(flush_succeeded_);
  EXPECT_EQ(host_->producer_host()->num_clients(), 1u);
}

TEST_F(CommitQueuePortTest, RefusedWithoutASealedMemfdOfTheSizeAskedFor) {
  EXPECT_FALSE(SetUpQueue(nullptr, kCommitQueueBytes)) << "no memfd";
  EXPECT_FALSE(SetUpQueue(shm_.get(), kCommitQueueBytes + 4096)) << "not its size";
  std::unique_ptr<base::MemfdSharedMemory> odd =
      base::MemfdSharedMemory::Create(kCommitQueueHeaderBytes + 3000);
  ASSERT_TRUE(odd);
  EXPECT_FALSE(SetUpQueue(odd.get(), kCommitQueueHeaderBytes + 3000)) << "not a ring size";
  EXPECT_FALSE(SetUpQueue(shm_.get(), kCommitQueueBytes, kCommitRecordVersion + 1))
      << "records of a version this service does not know";
  // Unsealed: the producer could shrink it under the service's reads.
  base::ScopedFile unsealed(memfd_create("unsealed", MFD_CLOEXEC));
  ASSERT_TRUE(unsealed);
  ASSERT_EQ(ftruncate(unsealed.get(), kCommitQueueBytes), 0);
  protos::gen::ZtSetupCommitQueueRequest req;
  req.set_size_bytes(kCommitQueueBytes);
  req.set_record_version(kCommitRecordVersion);
  EXPECT_FALSE(CallAndWait(producer_, "ZtSetupCommitQueue", req.SerializeAsString(), nullptr,
                           unsealed.get()))
      << "unsealed";
  messages_sent_++;
  EXPECT_TRUE(SetUpQueue(shm_.get(), kCommitQueueBytes));
  std::unique_ptr<base::MemfdSharedMemory> second =
      base::MemfdSharedMemory::Create(kCommitQueueBytes);
  writer_.reset();
  EXPECT_FALSE(SetUpQueue(second.get(), kCommitQueueBytes)) << "a second queue";
  EXPECT_EQ(host_->producer_port_stats().queues_set_up, 1u);
  // The connection is intact after every refusal.
  EXPECT_TRUE(CallAndWait(producer_, "Sync", ""));
}

}  // namespace
}  // namespace zt
