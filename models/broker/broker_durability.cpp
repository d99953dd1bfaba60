// A broker's logs and the disk: appends written to the page cache, fsyncs
// (flush.messages, the log flusher's flush.ms), the durable prefix as the OS
// writes back, and what a power loss leaves (the flushed prefix).
#include <algorithm>

#include "models/broker/broker.hpp"

namespace ksim::models {

bool Broker::write_to_disk(Replica& r, std::uint64_t bytes, std::int32_t records, SimTime& returns_at) {
  LogDir& dir = log_dirs_[r.log_dir];
  note_cache_position(r, r.log().log_end_offset());
  appended_bytes_ += bytes;
  const auto file = static_cast<std::uint64_t>(global_index(r.tp()));
  const Disk::Write write = dir.disk.write(bytes, now(), file);
  switch (write.status) {
    case Disk::Status::Ok: break;
    case Disk::Status::Full: take_log_dir_offline(r.log_dir, "disk full"); return false;
    case Disk::Status::Failed: take_log_dir_offline(r.log_dir, "disk failed"); return false;
  }
  returns_at = std::max(returns_at, write.returns_at);
  mark_durable(r);
  r.durability.push_back({r.log().log_end_offset() + records, write.durable_at});
  return true;
}

// flush.messages (log.flush.interval.messages): the append path fsyncs when
// enough records are unflushed (UnifiedLog.append).
void Broker::maybe_flush(Replica& r, SimTime& returns_at) {
  const std::int64_t flush_messages = topic(r.tp()).flush_messages.value_or(config_.log_flush_interval_messages);
  if (r.log().unflushed_records() < flush_messages) return;
  returns_at = std::max(returns_at, flush(r));
}

// An fsync of the replica's log: when it completes.
SimTime Broker::flush(Replica& r) {
  const SimTime done = log_dirs_[r.log_dir].disk.flush(now(), static_cast<std::uint64_t>(global_index(r.tp())));
  r.last_flush = now();
  // The fsync covers everything appended so far; it is durable from `done` on.
  for (std::size_t i = 0; i < r.durability.size(); ++i) r.durability[i].second = std::min(r.durability[i].second, done);
  return done;
}

// Moves the durable prefix forward to what has reached the disk by now.
void Broker::mark_durable(Replica& r) {
  while (!r.durability.empty() && r.durability.front().second <= now()) {
    r.mark_flushed(r.durability.front().first);
    r.durability.pop_front();
  }
}

// Power loss: every log loses what the page cache had not written back.
void Broker::lose_page_cache() {
  for (auto& [tp, r] : replicas_) {
    cache_floor_ = appended_bytes_;
    mark_durable(r);
    const Offset before = r.log().log_end_offset();
    r.lose_unflushed();
    if (r.log().log_end_offset() < before) {
      publish(LogTruncated{id_, tp, before, r.log().log_end_offset(), TruncationCause::PowerLoss});
    }
    r.durability.clear();
    if (r.future) {  // KIP-113: the future log loses its unflushed tail too, and is loaded at restart
      mark_durable(*r.future);
      r.future->lose_unflushed();
      r.future->durability.clear();
    }
  }
}

// Down already (a process crash), the machine loses power: the logs' page
// cache and the metadata log's unflushed records go as if it had been up.
void Broker::on_power_loss_while_down() {
  lose_page_cache();
  if (metadata_bootstrap_) metadata_log_.lose_power();
}

}  // namespace ksim::models
