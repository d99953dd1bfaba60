// ConsumerGroup's images (consumer_group_image.hpp): taking one, sharing what
// did not change with the one before; comparing the group with one; and the
// group an image holds, the partitions' holders rebuilt from its members as
// the group maintains them (each member holds what it is assigned and what
// it has still to revoke; no partition is held by two members).
#include "models/coordinator/consumer_group_image.hpp"

#include <algorithm>

namespace ksim::models {

const std::vector<TopicPartition>& ConsumerGroupImage::target_of(const std::string& member_id) const {
  static const std::vector<TopicPartition> kNone;
  const auto it = target->find(member_id);
  return it == target->end() ? kNone : it->second;
}

ConsumerGroupImage ConsumerGroup::image(const ConsumerGroupImage* previous) const {
  ConsumerGroupImage image;
  image.id = id_;
  image.group_epoch = group_epoch_;
  image.target_epoch = target_epoch_;
  image.partition_counts = partition_counts_;
  image.target = previous && *previous->target == target_ ? previous->target : std::make_shared<const Assignment>(target_);
  for (const auto& [member_id, m] : members_) {
    std::shared_ptr<const ConsumerGroupMember> shared;
    if (previous) {
      const auto it = previous->members.find(member_id);
      if (it != previous->members.end() && *it->second == m) shared = it->second;
    }
    image.members.emplace_hint(image.members.end(), member_id, shared ? shared : std::make_shared<const ConsumerGroupMember>(m));
  }
  return image;
}

bool ConsumerGroup::matches(const ConsumerGroupImage& image) const {
  if (image.id != id_ || image.group_epoch != group_epoch_ || image.target_epoch != target_epoch_ ||
      image.partition_counts != partition_counts_ || *image.target != target_ || image.members.size() != members_.size()) {
    return false;
  }
  return std::equal(members_.begin(), members_.end(), image.members.begin(), [](const auto& live, const auto& written) {
    return live.first == written.first && live.second == *written.second;
  });
}

ConsumerGroup ConsumerGroup::from_image(const ConsumerGroupImage& image) {
  ConsumerGroup g(image.id);
  g.group_epoch_ = image.group_epoch;
  g.target_epoch_ = image.target_epoch;
  g.partition_counts_ = image.partition_counts;
  g.target_ = *image.target;
  for (const auto& [member_id, m] : image.members) g.hold(g.members_.emplace_hint(g.members_.end(), member_id, *m)->second);
  return g;
}

}  // namespace ksim::models
