#pragma once
// Where a copy of a log stops agreeing with the log it copies, by leader
// epochs (KIP-101, KIP-279): what a future replica (KIP-113) truncates to
// before it copies more from its broker's current replica. Kafka's
// ReplicaAlterLogDirsThread finds it with an OffsetsForLeaderEpoch exchange
// with the current replica (AbstractFetcherThread.getOffsetTruncationState);
// both logs are on one broker, so ksim walks the copy's epochs from the newest.
#include "models/log/partition_log.hpp"

namespace ksim::models {

// The end of the prefix `copy` shares with `source`: at most both log end
// offsets; within the newest epoch of the copy that the source has too, up
// to where the source's epoch ends; where an epoch of the copy is unknown to
// the source, at that epoch's start.
Offset agreed_end(const PartitionLog& copy, const PartitionLog& source);

}  // namespace ksim::models
