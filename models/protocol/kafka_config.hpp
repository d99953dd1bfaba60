#pragma once
// Configuration of the Kafka models, under Kafka's own config names and
// defaults (Kafka 3.9/4.x docs; shared/kafka-reference.md lists sources).
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/hardware/cpu_costs.hpp"
#include "models/hardware/disk.hpp"
#include "models/protocol/acks.hpp"
#include "models/protocol/kafka_release.hpp"
#include "models/protocol/kafka_types.hpp"
#include "models/protocol/log_config.hpp"
#include "models/protocol/record_format.hpp"

namespace ksim::models {

struct LogDirSpec {
  std::string path;  // "/data/0"
  DiskSpec disk;
};

// The group coordinator of every broker, and the __consumer_offsets topic it writes to.
struct GroupCoordinatorConfig {
  std::int32_t offsets_topic_num_partitions = 50;          // offsets.topic.num.partitions
  std::uint64_t offsets_topic_segment_bytes = 100ULL << 20;  // offsets.topic.segment.bytes: 100 MiB
  std::int32_t offsets_topic_replication_factor = 3;       // offsets.topic.replication.factor
  SimTime offsets_commit_timeout = seconds(5);             // offsets.commit.timeout.ms
  // 4.0+: the group coordinator runs on the coordinator runtime (KIP-848's
  // rewrite, the only one from 4.0), which maps a timed-out write's error as
  // any other (group_write_error).
  bool coordinator_runtime = true;
  // Committed offsets expire (GroupCoordinatorShard.cleanupGroupMetadata,
  // GroupMetadataManager.cleanupGroupMetadata before 4.0): 7 days since 2.0
  // (KIP-186), 1 day before; checked every offsets.retention.check.interval.ms.
  SimTime offsets_retention = minutes(7 * 24 * 60);        // offsets.retention.minutes
  SimTime offsets_retention_check_interval = minutes(10);  // offsets.retention.check.interval.ms
  // KIP-211 (2.1): a classic group's offsets expire once it has been Empty
  // for the retention; before, each offset expired its retention after its commit.
  bool expire_when_empty = true;
  // 2.4 (KAFKA-8730, KIP-211's second part): a Stable group's offsets of
  // topics no member subscribes to expire from their commit.
  bool expire_unsubscribed = true;
  SimTime group_initial_rebalance_delay = seconds(3);      // group.initial.rebalance.delay.ms
  SimTime group_min_session_timeout = seconds(6);          // group.min.session.timeout.ms
  SimTime group_max_session_timeout = minutes(30);         // group.max.session.timeout.ms
  // KIP-848's consumer groups (group.protocol=consumer): the broker decides their timing.
  SimTime consumer_heartbeat_interval = seconds(5);        // group.consumer.heartbeat.interval.ms
  SimTime consumer_session_timeout = seconds(45);          // group.consumer.session.timeout.ms
  std::vector<std::string> consumer_assignors{"uniform", "range"};  // group.consumer.assignors (the first: default)
  // KIP-1251 (4.3): a commit's member epoch may be older than the member's, down to the
  // epoch each committed partition was assigned at (ConsumerGroup.validateOffsetCommit).
  bool assignment_epochs = true;
  // KIP-848's online migration (GroupMetadataManager.validateOnlineUpgrade /
  // validateOnlineDowngrade): group.consumer.migration.policy, whose release
  // default (GroupCoordinatorConfig.CONSUMER_GROUP_MIGRATION_POLICY_DEFAULT) is bidirectional.
  enum class MigrationPolicy { Disabled, Downgrade, Upgrade, Bidirectional };
  MigrationPolicy consumer_migration_policy = MigrationPolicy::Bidirectional;
  bool upgrade_enabled() const {
    return consumer_migration_policy == MigrationPolicy::Upgrade || consumer_migration_policy == MigrationPolicy::Bidirectional;
  }
  bool downgrade_enabled() const {
    return consumer_migration_policy == MigrationPolicy::Downgrade ||
           consumer_migration_policy == MigrationPolicy::Bidirectional;
  }
  // The most members a group may have (Integer.MAX_VALUE by default): a new
  // member's join past it gets GROUP_MAX_SIZE_REACHED (acceptJoiningMember,
  // throwIfConsumerGroupIsFull), and a conversion must fit the other protocol's.
  std::int32_t consumer_max_size = INT32_MAX;              // group.consumer.max.size (KIP-848, 4.0+)
  std::int32_t classic_max_size = INT32_MAX;               // group.max.size (KIP-389, 2.2+)
  // KIP-932's share groups (ShareGroupConfig, GroupCoordinatorConfig's group.share.*).
  SimTime share_heartbeat_interval = seconds(5);      // group.share.heartbeat.interval.ms
  SimTime share_session_timeout = seconds(45);        // group.share.session.timeout.ms
  SimTime share_record_lock_duration = seconds(30);   // group.share.record.lock.duration.ms
  std::int32_t share_delivery_count_limit = 5;        // group.share.delivery.count.limit
  std::int32_t share_partition_max_record_locks = 2000;  // group.share.partition.max.record.locks (4.1.0's ShareGroupConfig)
  // Time to replay one record of a __consumer_offsets partition when a broker
  // becomes its leader (Kafka's loadGroupsAndOffsets). Not a Kafka config.
  SimTime load_time_per_record = microseconds(2);
};

// The transaction coordinator of every broker, and its __transaction_state topic.
struct TxnCoordinatorConfig {
  std::int32_t partitions = 50;                          // transaction.state.log.num.partitions
  std::int32_t replication_factor = 3;                   // transaction.state.log.replication.factor
  std::int32_t min_isr = 2;                              // transaction.state.log.min.isr
  std::uint64_t segment_bytes = 100ULL << 20;            // transaction.state.log.segment.bytes: 100 MiB
  SimTime abort_check_interval = seconds(10);  // transaction.abort.timed.out.transaction.cleanup.interval.ms
  SimTime max_timeout = minutes(15);                     // transaction.max.timeout.ms
  // An id whose transaction is complete (or empty) and untouched this long is
  // expired: its tombstone is written and the coordinator forgets it
  // (TransactionStateManager.removeExpiredTransactionalIds), checked every interval.
  SimTime transactional_id_expiration = minutes(7 * 24 * 60);  // transactional.id.expiration.ms
  SimTime expiration_check_interval = minutes(60);  // transaction.remove.expired.transaction.cleanup.interval.ms
  SimTime load_time_per_record = microseconds(2);        // replaying the log (not a Kafka config)
  SimTime append_timeout = seconds(30);                  // request.timeout.ms of its own appends
  // The cluster's finalized transaction.version is 2 (KIP-890 part 2, 4.0+): the
  // coordinator's own aborts (timeouts, fencing) bump the epoch as an EndTxn v5 would.
  bool transaction_v2 = false;
};

// Test-only model mutations (docs/explore.md#model-mutations): bugs ksim once
// had, brought back on purpose so that tests can check that the invariants,
// ksim explore and ksim shrink find them. Never Kafka's behaviour: all off
// unless a scenario's `mutations:` section turns one on, with a warning.
struct ModelMutations {
  // Before a763d60 a leader acted on any AlterPartition answer: one answering a
  // change no longer pending (superseded by newer metadata) ended the change
  // then pending, so a pending ISR addition stopped holding back the high
  // watermark while the controller went on to commit it (chaos.yaml seed
  // 100165, high_watermark_within_isr). Stale states are still not applied.
  bool stale_alter_partition_answer = false;
  // Tiered storage (KIP-405) with local retention that ignores the remote
  // store: local segments are deleted before they are copied, as Kafka never
  // does (UnifiedLog.isSegmentEligibleForDeletion); breaks
  // tiered_local_log_start_within_remote.
  bool tiered_delete_before_copy = false;
};

// Tiered storage (KIP-405, 3.6+): RemoteLogManagerConfig's broker configs,
// and the object store the RemoteStorageManager writes to (not a Kafka
// config: `brokers.remote_storage` in a scenario). Each copy or read is one
// request to the store: its latency, then the bytes at its bandwidth, on one
// of the pool's threads.
struct RemoteLogConfig {
  bool system_enable = false;                   // remote.log.storage.system.enable
  SimTime task_interval = seconds(30);          // remote.log.manager.task.interval.ms: copies and expiration
  SimTime fetch_max_wait = milliseconds(500);   // remote.fetch.max.wait.ms (KIP-1018, 3.8+; -1 before: the fetch's max wait)
  int reader_threads = 10;                      // remote.log.reader.threads
  int copier_threads = 10;                      // remote.log.manager.copier.thread.pool.size (thread.pool.size before 3.9)
  SimTime store_latency = milliseconds(30);     // the store's time to first byte, per request
  double store_bytes_per_second = 100e6;        // the store's bandwidth, per request stream
  SimTime transfer_time(std::uint64_t bytes) const {
    return store_latency + static_cast<SimTime>(static_cast<double>(bytes) * 1e9 / store_bytes_per_second);
  }
};

struct BrokerConfig {
  SimTime replica_lag_time_max = seconds(30);             // replica.lag.time.max.ms
  bool auto_create_topics = true;                         // auto.create.topics.enable
  int num_replica_fetchers = 1;                           // num.replica.fetchers
  std::uint64_t replica_fetch_max_bytes = 1048576;        // replica.fetch.max.bytes
  std::uint64_t replica_fetch_response_max_bytes = 10485760;  // replica.fetch.response.max.bytes
  std::uint64_t replica_fetch_min_bytes = 1;              // replica.fetch.min.bytes
  SimTime replica_fetch_wait_max = milliseconds(500);     // replica.fetch.wait.max.ms
  SimTime replica_fetch_backoff = seconds(1);             // replica.fetch.backoff.ms
  SimTime replica_socket_timeout = seconds(30);           // replica.socket.timeout.ms
  SimTime connection_setup_timeout = seconds(10);    // socket.connection.setup.timeout.ms (KIP-601; the kernel's 127 s before 2.7)
  // KIP-113: the ReplicaAlterLogDirsThreads (0: one per log dir, Kafka's default
  // of num.replica.alter.log.dirs.threads) and their throttle, which
  // kafka-reassign-partitions --replica-alter-log-dirs-throttle sets (0: none).
  int num_replica_alter_log_dirs_threads = 0;             // num.replica.alter.log.dirs.threads
  double replica_alter_log_dirs_io_max_bytes_per_second = 0;  // replica.alter.log.dirs.io.max.bytes.per.second
  std::int64_t log_flush_interval_messages = INT64_MAX;   // log.flush.interval.messages (flush.messages' default)
  SimTime log_flush_interval = kNever;                    // log.flush.interval.ms (flush.ms' default; unset: the scheduler's)
  SimTime log_flush_scheduler_interval = kNever;          // log.flush.scheduler.interval.ms (Long.MAX_VALUE: the flusher never runs)
  SimTime log_retention_check_interval = minutes(5);      // log.retention.check.interval.ms
  SimTime file_delete_delay = seconds(60);                // file.delete.delay.ms: deleted segments leave the disk then
  SimTime log_initial_task_delay = seconds(30);           // LogManager's first retention check (log.initial.task.delay.ms)
  // The log cleaner (CleanerConfig): compacts logs with cleanup.policy=compact.
  bool log_cleaner_enable = true;                         // log.cleaner.enable
  SimTime log_cleaner_backoff = seconds(15);              // log.cleaner.backoff.ms: a thread's sleep when no log is cleanable
  std::int32_t log_cleaner_threads = 1;                   // log.cleaner.threads
  std::uint64_t log_cleaner_dedupe_buffer_size = 128ULL << 20;  // log.cleaner.dedupe.buffer.size: 128 MiB over all threads
  double log_cleaner_io_buffer_load_factor = 0.9;         // log.cleaner.io.buffer.load.factor: the offset map's fill
  double log_cleaner_io_max_bytes_per_second = 0;         // log.cleaner.io.max.bytes.per.second (0: Kafka's Double.MaxValue)
  SimTime broker_heartbeat_interval = seconds(2);         // broker.heartbeat.interval.ms
  bool controlled_shutdown_enable = true;                 // controlled.shutdown.enable: move leaderships before stopping
  // With a controller quorum, a heartbeat unanswered this long moves the broker
  // to another controller: controller.quorum.request.timeout.ms, after which
  // its metadata log fetch would ask another voter who leads.
  SimTime controller_request_timeout = seconds(2);
  // KIP-858 (KRaft, 3.7+): a broker that cannot tell the controller of a failed
  // log dir this long shuts down (log.dir.failure.timeout.ms); one whose
  // metadata log dir fails halts (metadata.log.dir, by default the first of
  // log.dirs; a path outside log.dirs is a dir no fault reaches).
  SimTime log_dir_failure_timeout = seconds(30);
  std::string metadata_log_dir;
  // The brokers' release's mechanisms (kafka_release.hpp): KIP-101 (without
  // it a follower truncates to its high watermark when it becomes a follower,
  // instead of asking the leader where its epoch ended), KIP-360, KIP-112,
  // KAFKA-15583, KIP-951.
  Mechanisms mechanisms;
  // Before KAFKA-1430 (Kafka < 0.8.2) a consumer's parked fetch completed
  // once enough bytes were appended (FetchRequestPurgatory.checkSatisfied)
  // and was then read up to the high watermark, and a high-watermark advance
  // woke no consumer fetch (Partition.maybeIncrementLeaderHW at 0.8.1.1).
  bool consumer_fetch_completes_on_append = false;
  // A kill -9's exit teardown (Node::set_exit_teardown): from the kill until
  // the kernel, having freed the JVM's memory, closes the broker's sockets.
  SimTime exit_teardown = 0;
  // KIP-227 (1.1): a leader skips the quiet partitions of a fetch session
  // (fetch_session.hpp). Off, it reads every partition of every fetch, with
  // the same outcome but its CPU cost; tests compare the two.
  bool fetch_sessions = true;
  std::vector<LogDirSpec> log_dirs{{"/data/0", {}}};     // log.dirs
  GroupCoordinatorConfig group_coordinator;
  TxnCoordinatorConfig transaction_coordinator;
  // KIP-890 part 1: a partition leader checks with the transaction
  // coordinator before it lets a transactional write open a transaction.
  bool transaction_partition_verification_enable = true;  // transaction.partition.verification.enable
  // KAFKA-18654 (4.0): a transactions-v2 add answered CONCURRENT_TRANSACTIONS is retried by the leader.
  SimTime add_partitions_to_txn_retry_backoff = milliseconds(20);       // add.partitions.to.txn.retry.backoff.ms
  SimTime add_partitions_to_txn_retry_backoff_max = milliseconds(100);  // add.partitions.to.txn.retry.backoff.max.ms
  RemoteLogConfig remote_log;  // tiered storage (KIP-405)
  BrokerThreading threading;
  BrokerCpuCosts cpu_costs;
  std::uint64_t page_cache_bytes = 0;  // memory left to the page cache (0: every read is served from it)
  ModelMutations mutations;            // test-only, all off (above)
};

struct ControllerConfig {
  SimTime broker_session_timeout = seconds(9);  // broker.session.timeout.ms (KRaft)
  // Controller work per partition whose leader is elected: failover time grows
  // with partition count. Jun Rao measured about 5ms per partition with the
  // ZooKeeper controller (2015); KRaft is much faster. Not a Kafka config.
  SimTime election_time_per_partition = microseconds(200);
  // A controller that takes over (a restart here) loads every partition's
  // state before it acts: with ZooKeeper about 2ms per partition read from
  // ZooKeeper (Jun Rao, "How to choose the number of topics/partitions",
  // 2015); a KRaft standby already has the metadata log replayed (KIP-500).
  SimTime metadata_load_time_per_partition = 0;
  // KIP-966 part 1, the cluster feature eligible.leader.replicas.version=1:
  // replicas that left the ISR while it was below min.insync.replicas stay
  // eligible leaders (ELR), and the ISR may become empty. Kafka's default for
  // a new cluster is 1 since 4.1, 0 before (and for clusters upgraded to 4.1).
  bool eligible_leader_replicas = false;
  // The cluster feature transaction.version (TransactionVersion): 2 is KIP-890
  // part 2's transactions v2, a new cluster's default from 4.0; 0 before 4.0.
  int transaction_version = 0;
  // Preferred leader election (QuorumController.maybeScheduleNextBalancePartitionLeaders):
  // auto.leader.rebalance.enable, and leader.imbalance.check.interval.seconds (300 s)
  // after a partition's leader stops being its preferred replica.
  bool auto_leader_rebalance = true;
  SimTime leader_imbalance_check_interval = seconds(300);
  SimTime connection_setup_timeout = seconds(10);  // socket.connection.setup.timeout.ms (KIP-601)
};

struct TopicSpec {
  std::string name = "events";
  std::int32_t partitions = 6;
  std::int32_t replication_factor = 3;
  std::int32_t min_insync_replicas = 1;             // min.insync.replicas
  bool unclean_leader_election_enable = false;      // unclean.leader.election.enable
  std::optional<std::int64_t> flush_messages;       // flush.messages (unset: the broker's log.flush.interval.messages)
  std::optional<SimTime> flush_ms;                  // flush.ms (unset: the broker's log.flush.interval.ms)
  RecordFormat record_format = RecordFormat::V2;    // message.format.version (the broker's log.message.format.version)
  std::vector<std::vector<BrokerId>> assignment;    // explicit replica assignment; empty: Kafka's placement
  LogConfig log;                                    // segment.bytes, segment.ms, retention.bytes, retention.ms, cleanup.policy
  // `create: auto`: the cluster does not start with it; a broker creates it when a client's metadata
  // request asks for it (auto.create.topics.enable), with num.partitions and default.replication.factor.
  bool auto_created = false;
};

// partitioner.class: none (Kafka's built-in partitioner, KIP-794, 3.3+);
// org.apache.kafka.clients.producer.RoundRobinPartitioner (2.4+), which
// spreads every record, keyed or not, round robin (the 2014 client's
// default partitioner did the same for keyless records); or
// org.apache.kafka.clients.producer.internals.DefaultPartitioner, the
// default of 2.4 to 3.2, whose keyless records stick to a partition until
// they need a new batch there (KIP-480). Before 2.4 the DefaultPartitioner
// hashed keys and spread keyless records round robin, record by record.
enum class PartitionerClass { BuiltIn, RoundRobin, StickyOnNewBatch, HashOrRoundRobin };

struct ProducerConfig {
  Acks acks = Acks::All;                              // acks: all (1 before Kafka 3.0, KIP-679)
  bool enable_idempotence = true;                     // enable.idempotence (false before 3.0)
  std::uint64_t batch_size = 16384;                   // batch.size
  PartitionerClass partitioner = PartitionerClass::BuiltIn;  // partitioner.class
  bool adaptive_partitioning = true;                  // partitioner.adaptive.partitioning.enable (KIP-794)
  bool partitioner_ignore_keys = false;               // partitioner.ignore.keys (KIP-794)
  SimTime linger = milliseconds(5);                   // linger.ms (0 before Kafka 4.0)
  std::uint64_t buffer_memory = 33554432;             // buffer.memory
  SimTime max_block = seconds(60);                    // max.block.ms
  int max_in_flight_requests_per_connection = 5;      // max.in.flight.requests.per.connection
  SimTime request_timeout = seconds(30);              // request.timeout.ms
  std::int64_t retries = INT32_MAX;                   // retries
  SimTime retry_backoff = milliseconds(100);          // retry.backoff.ms
  SimTime retry_backoff_max = seconds(1);             // retry.backoff.max.ms (KIP-580)
  SimTime delivery_timeout = seconds(120);            // delivery.timeout.ms
  std::uint64_t max_request_size = 1048576;           // max.request.size
  std::uint64_t send_buffer_bytes = 131072;           // send.buffer.bytes (SO_SNDBUF; -1, the OS's, is taken as 4 MiB)
  SimTime metadata_max_age = minutes(5);              // metadata.max.age.ms
  SimTime reconnect_backoff = milliseconds(50);       // reconnect.backoff.ms
  SimTime reconnect_backoff_max = seconds(1);         // reconnect.backoff.max.ms (KIP-144)
  SimTime connection_setup_timeout = seconds(10);    // socket.connection.setup.timeout.ms (KIP-601; the kernel's 127 s before 2.7)
  std::string transactional_id;                       // transactional.id (empty: not transactional)
  // Transactions v2 (KIP-890 part 2): the client (4.0+) and the cluster's
  // finalized transaction.version (2 from 4.0) both have it.
  bool transaction_v2 = false;
  SimTime transaction_timeout = seconds(60);          // transaction.timeout.ms
  // The producer's release's mechanisms: KIP-91 (delivery.timeout.ms; before
  // it a batch expires after request.timeout.ms in the accumulator), KIP-360,
  // KIP-951 (take the leader a NOT_LEADER_OR_FOLLOWER answer names, and
  // retry to a new leader without backing off).
  Mechanisms mechanisms;
};

}  // namespace ksim::models
