#include "models/protocol/api_message.hpp"

#include <cstdio>
#include <cstdlib>

namespace ksim::models {

void unexpected_message(std::string_view node, const ApiMessage& message) {
  const std::string_view api = to_string(message.api_key());
  std::fprintf(stderr, "ksim: %.*s: unexpected %.*s %s\n", static_cast<int>(node.size()), node.data(),
               static_cast<int>(api.size()), api.data(), message.is_response() ? "response" : "request");
  assert(false && "unexpected message");
  std::abort();
}

}  // namespace ksim::models
