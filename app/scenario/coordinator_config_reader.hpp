#pragma once
// The brokers' coordinator configs: the group coordinator's (offsets.*,
// group.*, group.consumer.* of KIP-848, group.share.* of KIP-932) and the
// transaction coordinator's (transaction.*), with their release defaults.
#include "app/scenario/config_reader.hpp"
#include "models/protocol/kafka_config.hpp"
#include "models/protocol/kafka_release.hpp"

namespace ksim::app {

void read_group_coordinator_config(config::MapReader& in, models::GroupCoordinatorConfig& g, const models::Mechanisms& m);
void read_txn_coordinator_config(config::MapReader& in, models::BrokerConfig& c);

}  // namespace ksim::app
