// The identity of a plan: a 64-bit FNV-1a over the values that make two plans the same
// plan (targets' PID and start time, signals, GPUs...), shown as 16 hex digits. An
// identity for comparing a preview with a later confirmation, not a secret.
#pragma once

#include <cstdint>
#include <string>

namespace gpukill::engine {

class PlanIdentity {
  public:
    // Each value's eight bytes, least significant first.
    PlanIdentity& add(std::uint64_t value);
    std::string hex() const;

  private:
    std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace gpukill::engine
