#pragma once
// A message of the Kafka protocol: a request or a response of one API.
// Every message a Kafka node (broker, controller, client) receives is one, so
// a node reads its key with api_message(), dispatches with an exhaustive
// switch on it, and only then takes the concrete type with message_as<T>().
//
//   struct ProduceRequest final : KafkaRequest<ProduceRequest, ApiKey::Produce> { ... };
#include <cassert>
#include <memory>
#include <string_view>

#include "models/protocol/api_key.hpp"
#include "sim/network/message.hpp"

namespace ksim::models {

class ApiMessage : public Message {
 public:
  ApiKey api_key() const { return api_key_; }
  bool is_response() const { return response_; }

 protected:
  ApiMessage(ApiKey key, bool response) : api_key_(key), response_(response) {}

 private:
  ApiKey api_key_;
  bool response_;
};

// The base of each message type: its key and direction, and its name in the trace (Derived::kName).
template <class Derived, ApiKey Key, bool Response>
struct KafkaMessage : ApiMessage {
  static constexpr ApiKey kApiKey = Key;
  static constexpr bool kIsResponse = Response;
  KafkaMessage() : ApiMessage(Key, Response) {}
  std::string_view name() const override { return Derived::kName; }
};
template <class Derived, ApiKey Key>
using KafkaRequest = KafkaMessage<Derived, Key, false>;
template <class Derived, ApiKey Key>
using KafkaResponse = KafkaMessage<Derived, Key, true>;

// A message received by a Kafka node: one of the protocol's (nothing else is sent to one).
inline const ApiMessage& api_message(const Message& message) { return static_cast<const ApiMessage&>(message); }

// Is `message` a T (T's key and direction)?
template <class T>
bool message_is(const Message& message) {
  const ApiMessage& m = api_message(message);
  return m.api_key() == T::kApiKey && m.is_response() == T::kIsResponse;
}

// `message` as the T that its key says it is.
template <class T>
const T& message_as(const Message& message) {
  assert(message_is<T>(message) && "a message is not the type its key says");
  return static_cast<const T&>(message);
}
template <class T>
T& message_as(Message& message) {
  assert(message_is<T>(message) && "a message is not the type its key says");
  return static_cast<T&>(message);
}

// The ownership of `message`, as the T that its key says it is.
template <class T>
std::unique_ptr<T> take_message(MessagePtr message) {
  assert(message_is<T>(*message) && "a message is not the type its key says");
  return std::unique_ptr<T>(static_cast<T*>(message.release()));
}

// `message` as a T, or null when it is null or another message.
template <class T>
const T* message_if(const Message* message) {
  return message && message_is<T>(*message) ? static_cast<const T*>(message) : nullptr;
}

// A message this node neither asks for nor serves: says which on stderr, then fails an assertion.
[[noreturn]] void unexpected_message(std::string_view node, const ApiMessage& message);

}  // namespace ksim::models
