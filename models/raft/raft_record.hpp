#pragma once
// What the KRaft metadata log holds: entries of (offset, epoch, record). The
// record is opaque to Raft; its owner (the controller) subclasses RaftRecord
// with its metadata records and gives their size on the wire. Raft writes one
// record of its own, LeaderChange, at the start of every leader epoch
// (LeaderState.appendStartOfEpochControlRecords), as a control record that no
// state machine replays.
#include <cstdint>
#include <memory>
#include <vector>

#include "models/protocol/kafka_types.hpp"

namespace ksim::models {

// A replica of the metadata log: a controller's node.id (a voter) or a broker's (an observer).
using RaftNodeId = std::int32_t;
constexpr RaftNodeId kNoRaftNode = -1;

class RaftRecord {
 public:
  virtual ~RaftRecord() = default;
  virtual std::uint64_t size_bytes() const = 0;
  // Raft's own control records (LeaderChange): skipped when committed records are replayed.
  virtual bool is_control() const { return false; }
};
using RaftRecordPtr = std::shared_ptr<const RaftRecord>;

// LeaderChangeMessage: who leads the new epoch, the voters, and who voted for it.
struct LeaderChangeRecord final : RaftRecord {
  RaftNodeId leader = kNoRaftNode;
  std::vector<RaftNodeId> voters;
  std::vector<RaftNodeId> granting_voters;
  std::uint64_t size_bytes() const override { return 16 + 4 * (voters.size() + granting_voters.size()); }
  bool is_control() const override { return true; }
};

// One record of the log. A leader appends the records of one append() as one
// batch (BatchAccumulator): fetches return whole batches, so a follower's
// fetch offset, and with it the high watermark, never falls inside one.
struct RaftEntry {
  Offset offset = 0;
  Epoch epoch = 0;
  RaftRecordPtr record;
  bool batch_end = true;  // the last record of its batch
};

// Kafka's record batch header (RecordBatch: 61 bytes), once per batch on the wire.
constexpr std::uint64_t kRaftBatchHeaderBytes = 61;

}  // namespace ksim::models
