// Kafka's own config names, per kind, from the Kafka source ksim models
// (4.0.0-SNAPSHOT, apache/kafka commit 1eb7644349c): the names each class defines
// in its ConfigDef. Producer: ProducerConfig (with SslConfigs, SaslConfigs);
// consumer: ConsumerConfig (likewise); broker: AbstractKafkaConfig.CONFIG_DEF
// (ServerConfigs, ServerLogConfigs, ReplicationConfigs, KRaftConfigs,
// SocketServerConfigs, GroupCoordinatorConfig, TransactionLogConfig,
// TransactionStateManagerConfig, CleanerConfig, QuotaConfig, ...); topic:
// TopicConfig. A name here that ksim does not read is "not modelled".
#include "app/scenario/kafka_config_names.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <sstream>

namespace ksim::app {

namespace {
// The clients' SSL and SASL configs (SslConfigs.addClientSslSupport, SaslConfigs.addClientSaslSupport).
constexpr const char* kClientSecurity = R"(
sasl.client.callback.handler.class sasl.jaas.config sasl.kerberos.kinit.cmd
sasl.kerberos.min.time.before.relogin sasl.kerberos.service.name sasl.kerberos.ticket.renew.jitter
sasl.kerberos.ticket.renew.window.factor sasl.login.callback.handler.class sasl.login.class
sasl.login.connect.timeout.ms sasl.login.read.timeout.ms sasl.login.refresh.buffer.seconds
sasl.login.refresh.min.period.seconds sasl.login.refresh.window.factor sasl.login.refresh.window.jitter
sasl.login.retry.backoff.max.ms sasl.login.retry.backoff.ms sasl.mechanism sasl.oauthbearer.clock.skew.seconds
sasl.oauthbearer.expected.audience sasl.oauthbearer.expected.issuer sasl.oauthbearer.header.urlencode
sasl.oauthbearer.jwks.endpoint.refresh.ms sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms
sasl.oauthbearer.jwks.endpoint.retry.backoff.ms sasl.oauthbearer.jwks.endpoint.url
sasl.oauthbearer.scope.claim.name sasl.oauthbearer.sub.claim.name sasl.oauthbearer.token.endpoint.url
security.providers ssl.cipher.suites ssl.enabled.protocols ssl.endpoint.identification.algorithm
ssl.engine.factory.class ssl.key.password ssl.keymanager.algorithm ssl.keystore.certificate.chain
ssl.keystore.key ssl.keystore.location ssl.keystore.password ssl.keystore.type ssl.protocol ssl.provider
ssl.secure.random.implementation ssl.trustmanager.algorithm ssl.truststore.certificates
ssl.truststore.location ssl.truststore.password ssl.truststore.type
)";
constexpr const char* kProducer = R"(
acks batch.size bootstrap.servers buffer.memory client.dns.lookup client.id compression.gzip.level
compression.lz4.level compression.type compression.zstd.level connections.max.idle.ms delivery.timeout.ms
enable.idempotence enable.metrics.push interceptor.classes key.serializer linger.ms max.block.ms
max.in.flight.requests.per.connection max.request.size metadata.max.age.ms metadata.max.idle.ms
metadata.recovery.strategy metric.reporters metrics.num.samples metrics.recording.level
metrics.sample.window.ms partitioner.adaptive.partitioning.enable partitioner.availability.timeout.ms
partitioner.class partitioner.ignore.keys receive.buffer.bytes reconnect.backoff.max.ms reconnect.backoff.ms
request.timeout.ms retries retry.backoff.max.ms retry.backoff.ms security.protocol send.buffer.bytes
socket.connection.setup.timeout.max.ms socket.connection.setup.timeout.ms transaction.timeout.ms
transactional.id value.serializer
)";
constexpr const char* kConsumer = R"(
allow.auto.create.topics auto.commit.interval.ms auto.offset.reset bootstrap.servers check.crcs
client.dns.lookup client.id client.rack connections.max.idle.ms default.api.timeout.ms enable.auto.commit
enable.metrics.push exclude.internal.topics fetch.max.bytes fetch.max.wait.ms fetch.min.bytes group.id
group.instance.id group.protocol group.remote.assignor heartbeat.interval.ms interceptor.classes
isolation.level key.deserializer max.partition.fetch.bytes max.poll.interval.ms max.poll.records
metadata.max.age.ms metadata.recovery.strategy metric.reporters metrics.num.samples metrics.recording.level
metrics.sample.window.ms partition.assignment.strategy receive.buffer.bytes reconnect.backoff.max.ms
reconnect.backoff.ms request.timeout.ms retry.backoff.max.ms retry.backoff.ms security.protocol
send.buffer.bytes session.timeout.ms socket.connection.setup.timeout.max.ms socket.connection.setup.timeout.ms
value.deserializer
)";
// The broker's own SSL and SASL configs are among them (BrokerSecurityConfigs),
// and 4.0.0's AddPartitionsToTxnConfig (KAFKA-18654, after that commit).
constexpr const char* kBroker = R"(
add.partitions.to.txn.retry.backoff.max.ms add.partitions.to.txn.retry.backoff.ms advertised.listeners alter.config.policy.class.name alter.log.dirs.replication.quota.window.num
alter.log.dirs.replication.quota.window.size.seconds authorizer.class.name auto.create.topics.enable
auto.leader.rebalance.enable background.threads broker.heartbeat.interval.ms broker.id
broker.id.generation.enable broker.rack broker.session.timeout.ms cleanup.policy client.quota.callback.class
compression.gzip.level compression.lz4.level compression.type compression.zstd.level
connection.failed.authentication.delay.ms connection_creation_rate connections.max.idle.ms
connections.max.reauth.ms consumer_byte_rate control.plane.listener.name controlled.shutdown.enable
controlled.shutdown.max.retries controlled.shutdown.retry.backoff.ms controller.listener.names
controller.quorum.append.linger.ms controller.quorum.bootstrap.servers
controller.quorum.election.backoff.max.ms controller.quorum.election.timeout.ms
controller.quorum.fetch.timeout.ms controller.quorum.request.timeout.ms controller.quorum.retry.backoff.ms
controller.quorum.voters controller.quota.window.num controller.quota.window.size.seconds
controller.socket.timeout.ms controller_mutation_rate create.topic.policy.class.name
default.replication.factor delegation.token.expiry.check.interval.ms delegation.token.expiry.time.ms
delegation.token.max.lifetime.ms delegation.token.secret.key delete.records.purgatory.purge.interval.requests
delete.retention.ms delete.topic.enable early.start.listeners eligible.leader.replicas.enable fetch.max.bytes
fetch.purgatory.purge.interval.requests file.delete.delay.ms flush.messages flush.ms
follower.replication.throttled.rate follower.replication.throttled.replicas group.consumer.assignors
group.consumer.heartbeat.interval.ms group.consumer.max.heartbeat.interval.ms
group.consumer.max.session.timeout.ms group.consumer.max.size group.consumer.migration.policy group.consumer.min.heartbeat.interval.ms
group.consumer.min.session.timeout.ms group.consumer.session.timeout.ms group.coordinator.append.linger.ms
group.coordinator.rebalance.protocols group.coordinator.threads group.initial.rebalance.delay.ms
group.max.session.timeout.ms group.max.size group.min.session.timeout.ms group.share.delivery.count.limit
group.share.heartbeat.interval.ms group.share.max.groups group.share.max.heartbeat.interval.ms
group.share.max.record.lock.duration.ms group.share.max.session.timeout.ms group.share.max.size
group.share.min.heartbeat.interval.ms group.share.min.record.lock.duration.ms
group.share.min.session.timeout.ms group.share.partition.max.record.locks group.share.record.lock.duration.ms
group.share.session.timeout.ms index.interval.bytes initial.broker.registration.timeout.ms
inter.broker.listener.name inter.broker.protocol.version kafka.metrics.polling.interval.secs
kafka.metrics.reporters leader.imbalance.check.interval.seconds leader.imbalance.per.broker.percentage
leader.replication.throttled.rate leader.replication.throttled.replicas listener.security.protocol.map
listeners local.retention.bytes local.retention.ms log.cleaner.backoff.ms log.cleaner.dedupe.buffer.size
log.cleaner.delete.retention.ms log.cleaner.enable log.cleaner.io.buffer.load.factor
log.cleaner.io.buffer.size log.cleaner.io.max.bytes.per.second log.cleaner.max.compaction.lag.ms
log.cleaner.min.cleanable.ratio log.cleaner.min.compaction.lag.ms log.cleaner.threads log.cleanup.policy
log.dir log.dir.failure.timeout.ms log.dirs log.flush.interval.messages log.flush.interval.ms
log.flush.offset.checkpoint.interval.ms log.flush.scheduler.interval.ms
log.flush.start.offset.checkpoint.interval.ms log.index.interval.bytes log.index.size.max.bytes
log.local.retention.bytes log.local.retention.ms log.message.downconversion.enable log.message.format.version
log.message.timestamp.after.max.ms log.message.timestamp.before.max.ms log.message.timestamp.difference.max.ms
log.message.timestamp.type log.preallocate log.retention.bytes log.retention.check.interval.ms
log.retention.hours log.retention.minutes log.retention.ms log.roll.hours log.roll.jitter.hours
log.roll.jitter.ms log.roll.ms log.segment.bytes log.segment.delete.delay.ms max.compaction.lag.ms
max.connection.creation.rate max.connections max.connections.per.ip max.connections.per.ip.overrides
max.incremental.fetch.session.cache.slots max.message.bytes max.request.partition.size.limit
message.downconversion.enable message.format.version message.max.bytes message.timestamp.after.max.ms
message.timestamp.before.max.ms message.timestamp.difference.max.ms message.timestamp.type metadata.log.dir
metadata.log.max.record.bytes.between.snapshots metadata.log.max.snapshot.interval.ms
metadata.log.segment.bytes metadata.log.segment.ms metadata.max.idle.interval.ms metadata.max.retention.bytes
metadata.max.retention.ms metric.reporters metrics.num.samples metrics.recording.level
metrics.sample.window.ms min.cleanable.dirty.ratio min.compaction.lag.ms min.insync.replicas node.id
num.io.threads num.network.threads num.partitions num.recovery.threads.per.data.dir
num.replica.alter.log.dirs.threads num.replica.fetchers offset.metadata.max.bytes offsets.commit.timeout.ms
offsets.load.buffer.size offsets.retention.check.interval.ms offsets.retention.minutes
offsets.topic.compression.codec offsets.topic.num.partitions offsets.topic.replication.factor
offsets.topic.segment.bytes password.encoder.cipher.algorithm password.encoder.iterations
password.encoder.key.length password.encoder.keyfactory.algorithm password.encoder.old.secret
password.encoder.secret preallocate principal.builder.class process.roles producer.id.expiration.ms
producer.purgatory.purge.interval.requests producer_byte_rate queued.max.request.bytes queued.max.requests
quota.window.num quota.window.size.seconds remote.fetch.max.wait.ms remote.list.offsets.request.timeout.ms
remote.log.copy.disable remote.log.delete.on.disable remote.log.index.file.cache.total.size.bytes
remote.log.manager.copier.thread.pool.size remote.log.manager.copy.max.bytes.per.second
remote.log.manager.copy.quota.window.num remote.log.manager.copy.quota.window.size.seconds
remote.log.manager.expiration.thread.pool.size remote.log.manager.fetch.max.bytes.per.second
remote.log.manager.fetch.quota.window.num remote.log.manager.fetch.quota.window.size.seconds
remote.log.manager.task.interval.ms remote.log.manager.thread.pool.size
remote.log.metadata.custom.metadata.max.bytes remote.log.metadata.manager.class.name
remote.log.metadata.manager.class.path remote.log.metadata.manager.impl.prefix
remote.log.metadata.manager.listener.name remote.log.reader.max.pending.tasks remote.log.reader.threads
remote.log.storage.manager.class.name remote.log.storage.manager.class.path
remote.log.storage.manager.impl.prefix remote.log.storage.system.enable remote.storage.enable
replica.alter.log.dirs.io.max.bytes.per.second replica.fetch.backoff.ms replica.fetch.max.bytes
replica.fetch.min.bytes replica.fetch.response.max.bytes replica.fetch.wait.max.ms
replica.high.watermark.checkpoint.interval.ms replica.lag.time.max.ms replica.selector.class
replica.socket.receive.buffer.bytes replica.socket.timeout.ms replication.quota.window.num
replication.quota.window.size.seconds request.timeout.ms request_percentage reserved.broker.max.id
retention.bytes retention.ms sasl.enabled.mechanisms sasl.kerberos.principal.to.local.rules
sasl.mechanism.controller.protocol sasl.mechanism.inter.broker.protocol sasl.server.callback.handler.class
sasl.server.max.receive.size security.inter.broker.protocol segment.bytes segment.index.bytes
segment.jitter.ms segment.ms share.coordinator.append.linger.ms share.coordinator.load.buffer.size
share.coordinator.snapshot.update.records.per.snapshot share.coordinator.state.topic.compression.codec
share.coordinator.state.topic.min.isr share.coordinator.state.topic.num.partitions
share.coordinator.state.topic.replication.factor share.coordinator.state.topic.segment.bytes
share.coordinator.threads share.coordinator.write.timeout.ms share.fetch.purgatory.purge.interval.requests
socket.connection.setup.timeout.max.ms socket.connection.setup.timeout.ms socket.listen.backlog.size
socket.receive.buffer.bytes socket.request.max.bytes socket.send.buffer.bytes ssl.allow.dn.changes
ssl.allow.san.changes ssl.client.auth ssl.principal.mapping.rules telemetry.max.bytes
transaction.abort.timed.out.transaction.cleanup.interval.ms transaction.max.timeout.ms
transaction.partition.verification.enable transaction.remove.expired.transaction.cleanup.interval.ms
transaction.state.log.load.buffer.size transaction.state.log.min.isr transaction.state.log.num.partitions
transaction.state.log.replication.factor transaction.state.log.segment.bytes transactional.id.expiration.ms
unclean.leader.election.enable zookeeper.connect zookeeper.connection.timeout.ms
zookeeper.max.in.flight.requests zookeeper.metadata.migration.enable zookeeper.session.timeout.ms
zookeeper.set.acl zookeeper.ssl.cipher.suites zookeeper.ssl.client.enable zookeeper.ssl.crl.enable
zookeeper.ssl.enabled.protocols zookeeper.ssl.endpoint.identification.algorithm
zookeeper.ssl.keystore.location zookeeper.ssl.keystore.password zookeeper.ssl.keystore.type
zookeeper.ssl.ocsp.enable zookeeper.ssl.protocol zookeeper.ssl.truststore.location
zookeeper.ssl.truststore.password zookeeper.ssl.truststore.type
)";
constexpr const char* kTopic = R"(
cleanup.policy compression.gzip.level compression.lz4.level compression.type compression.zstd.level
delete.retention.ms file.delete.delay.ms flush.messages flush.ms index.interval.bytes local.retention.bytes
local.retention.ms max.compaction.lag.ms max.message.bytes message.downconversion.enable
message.format.version message.timestamp.after.max.ms message.timestamp.before.max.ms
message.timestamp.difference.max.ms message.timestamp.type min.cleanable.dirty.ratio min.compaction.lag.ms
min.insync.replicas preallocate remote.log.copy.disable remote.log.delete.on.disable remote.storage.enable
retention.bytes retention.ms segment.bytes segment.index.bytes segment.jitter.ms segment.ms
unclean.leader.election.enable
)";

std::vector<std::string> split_sorted(const char* text, const char* more = "") {
  std::vector<std::string> names;
  std::istringstream in(std::string(text) + " " + more);
  for (std::string name; in >> name;) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

const std::vector<std::string>& kafka_config_names(KafkaConfigKind kind) {
  static const std::vector<std::string> producer = split_sorted(kProducer, kClientSecurity);
  static const std::vector<std::string> consumer = split_sorted(kConsumer, kClientSecurity);
  static const std::vector<std::string> broker = split_sorted(kBroker, kClientSecurity);
  static const std::vector<std::string> topic = split_sorted(kTopic);
  switch (kind) {
    case KafkaConfigKind::Producer: return producer;
    case KafkaConfigKind::Consumer: return consumer;
    case KafkaConfigKind::Broker: return broker;
    case KafkaConfigKind::Topic: return topic;
  }
  return topic;
}

std::string_view to_string(KafkaConfigKind kind) {
  switch (kind) {
    case KafkaConfigKind::Producer: return "producer";
    case KafkaConfigKind::Consumer: return "consumer";
    case KafkaConfigKind::Broker: return "broker";
    case KafkaConfigKind::Topic: return "topic";
  }
  return "";
}

config::MapReader kafka_config(config::MapReader& section, KafkaConfigKind kind) {
  static const std::array<std::string, 4> kWhat{"a Kafka producer config", "a Kafka consumer config",
                                                "a Kafka broker config", "a Kafka topic config"};
  const std::string& what = kWhat[static_cast<std::size_t>(kind)];
  config::MapReader config = section.map("config");
  config.foreign_keys({&kafka_config_names(kind), what});
  config.record_values();  // for ksim validate --resolved
  const std::optional<std::string> file = section.optional<std::string>("config_file");
  if (!file) return config;
  namespace fs = std::filesystem;
  const fs::path path = fs::path(section.file()).parent_path() / *file;
  try {
    const config::Document properties = config::Document::load_properties(path.lexically_normal().string());
    config.add_defaults(properties.root());
  } catch (const config::ConfigError& e) {
    section.reject("config_file", e.what());
  }
  return config;
}

}  // namespace ksim::app
