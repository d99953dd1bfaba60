#pragma once
// A step of a state machine, checked against its table of legal
// transitions. `State` is an enum class with, found by argument-dependent
// lookup, `bool legal(State from, State to)` (is `from` one of the valid
// previous states of `to`?) and `std::string_view to_string(State)`. An
// illegal step names both states and whose machine it is ("group", "g1") on
// stderr, then fails an assertion: assertions are on in every build
// (CMakeLists.txt).
#include <cassert>
#include <cstdio>
#include <string_view>

namespace ksim {

template <class State>
void check_transition(State from, State to, std::string_view machine, std::string_view owner) {
  if (legal(from, to)) return;
  const auto print = [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stderr); };
  print("ksim: ");
  print(machine);
  print(" ");
  print(owner);
  print(": illegal transition from ");
  print(to_string(from));
  print(" to ");
  print(to_string(to));
  print("\n");
  assert(false && "illegal state transition");
}

// `state` becomes `next`, if `next` may follow it.
template <class State>
void transition(State& state, State next, std::string_view machine, std::string_view owner) {
  check_transition(state, next, machine, owner);
  state = next;
}

}  // namespace ksim
