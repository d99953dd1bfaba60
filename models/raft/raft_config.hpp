#pragma once
// A Raft replica's settings: the controller.quorum.* configs (QuorumConfig,
// with Kafka's defaults), KafkaRaftClient's constants, and what ksim adds to
// model the disk (not a Kafka config).
#include <cstdint>

#include "sim/events/time.hpp"

namespace ksim::models {

struct RaftConfig {
  // controller.quorum.election.timeout.ms: a voter with no leader becomes a
  // candidate after a random time in [timeout, 2 x timeout).
  SimTime election_timeout = milliseconds(1000);
  // controller.quorum.fetch.timeout.ms: a follower without a successful fetch
  // for this long becomes a candidate; a leader without fetches from a majority
  // for 1.5 x this long resigns (LeaderState's check quorum).
  SimTime fetch_timeout = milliseconds(2000);
  // controller.quorum.election.backoff.max.ms: the cap of a failed candidate's random backoff.
  SimTime election_backoff_max = milliseconds(1000);
  // controller.quorum.request.timeout.ms: a request unanswered this long may be sent again.
  SimTime request_timeout = milliseconds(2000);
  // controller.quorum.retry.backoff.ms: the wait after a failed request.
  SimTime retry_backoff = milliseconds(20);
  // controller.quorum.append.linger.ms: how long the leader gathers appends before writing them.
  SimTime append_linger = milliseconds(25);
  // KafkaRaftClient.MAX_FETCH_WAIT_MS: how long the leader holds a fetch that found nothing new.
  SimTime fetch_max_wait = milliseconds(500);
  // KIP-1166 (Kafka 4.1): a fetch carries the fetcher's high watermark, and the
  // leader answers at once, or as soon as its own passes it, a fetch that would
  // learn a higher one. Before, a fetch at the log's end waited for new records
  // or the max wait (KAFKA-14145: up to 500 ms for a commit to reach a replica).
  bool fetch_carries_high_watermark = false;
  // KIP-996 (Kafka 4.0): a voter whose election or fetch timeout expires
  // becomes Prospective and asks for pre-votes (a Vote with PreVote=true, in
  // its own epoch, which no voter records) and stands as a candidate only once
  // a majority granted them. Before, it became a candidate of the next epoch at once.
  bool pre_vote = false;
  // KafkaRaftClient.MAX_FETCH_SIZE_BYTES.
  std::uint64_t fetch_max_bytes = 8 * 1024 * 1024;
  // RaftManager passes followersAlwaysFlush = true on controllers (they may
  // become voters); a broker observer flushes only when it is a voter, never.
  bool followers_always_flush = false;
  // Not a Kafka config: how long one fsync of the metadata log takes (0: at
  // once). The leader counts its own entries towards the high watermark, and a
  // voter fetches again, only once they are flushed.
  SimTime fsync_latency = milliseconds(1);
};

}  // namespace ksim::models
