#pragma once
// Every typed event a Kafka model publishes, as one variant. Trackers and
// checkers receive them through ModelEventBus and handle them with an
// exhaustive std::visit; the trace is their serialised form (each event's
// kind() and trace()), so what a run traces and what its checkers see are
// the same facts.
#include <variant>

#include "models/events/broker_events.hpp"
#include "models/events/client_events.hpp"
#include "models/events/controller_events.hpp"
#include "models/events/coordinator_events.hpp"

namespace ksim::models {

using ModelEvent = std::variant<
    // brokers
    BecameLeader, BecameFollower, HighWatermarkAdvanced, IsrChangeProposed, IsrUpdated, LogTruncated, SegmentsDeleted,
    SegmentCopiedToRemote, RemoteSegmentsDeleted, LogDirWentOffline,
    BrokerShutDown, BatchAppended, DuplicateBatch, TxnMarkerWritten, ShareRecordsAcquired, ShareRecordReleased,
    ReplicaCreated, ReplicaDeleted, LogDirMoveChanged,
    // the controller
    ControllerLoading, ControllerActivated, ControllerRenounced, BrokerFenced, ControlledShutdownStarted, BrokerUnfenced, LeaderElected, IsrCommitted,
    ReassignmentChanged,
    // group and transaction coordinators
    MemberAdded, StaticMemberReplaced, RebalancePrepared, MemberRemoved, JoinCompleted, Rebalanced,
    MemberReconciled, MemberEpochFenced, GroupLoadStarted, GroupLoaded, GroupUnloaded, TxnFenced, TxnEpochBumped,
    TxnPrepared, TxnCompleted, TxnTimedOut, TxnResumed,
    // consumers
    ConsumerStopped, CoordinatorFound, CoordinatorLost, JoinSent, AssignmentReceived, PollTimedOut,
    PartitionReleased, NoCommittedOffset, PositionReset, PositionValidating, TruncationDetected,
    TaskProducerReplaced,
    // producers
    TxnOffsetsRejected, TransactionsInitialised, TransactionEnded, ProducerFenced, BatchFailed,
    ProduceRequestTimedOut,
    // the log cleaner (at the end: the alternatives before keep their indexes)
    LogCleaned,
    // KIP-848's online migration, the brokers' metadata log (at the end, for the same reason)
    GroupConverted, MetadataApplied,
    // offsets.retention.minutes (at the end, for the same reason)
    OffsetsExpired, TxnIdExpired,
    // topics created while the cluster runs (at the end, for the same reason)
    TopicCreated,
    // the transaction coordinator's loads, KIP-380's stale pushes (at the end, for the same reason)
    TxnLoadStarted, StalePushRefused>;

// Writes the event as its trace record (kind, then fields), unless it is one the trace leaves out.
void trace_event(Trace& trace, SimTime time, std::string_view node, const ModelEvent& event);

}  // namespace ksim::models
