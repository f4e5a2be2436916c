// Kill plans previewed through MCP, kept for a short validity window so that the
// assistant's "execute this plan" carries out exactly what it was shown: the request is
// kept under its plan id, and executing builds the plan again with expected_plan_id, so
// a target that exited, was replaced or gained a worker since makes it a conflict and
// nothing is signalled. Bounded (the oldest plan goes first) and expiring by the
// Engine's clock; an unknown or expired plan id is refused, never guessed at.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <optional>
#include <string>

#include "engine/kill.hpp"

namespace gpukill::mcp {

class PlanStore {
  public:
    PlanStore(std::chrono::seconds validity, std::size_t capacity = 64)
        : validity_(validity), capacity_(capacity) {}

    // Keeps `request` under `plan_id`; returns when it expires.
    std::chrono::system_clock::time_point keep(const std::string& plan_id,
                                               engine::KillRequest request,
                                               std::chrono::system_clock::time_point now);
    // Takes the request out (a plan is executed once). Empty when unknown or expired.
    std::optional<engine::KillRequest> take(const std::string& plan_id,
                                            std::chrono::system_clock::time_point now);
    std::size_t size() const { return plans_.size(); }
    std::chrono::seconds validity() const { return validity_; }

  private:
    struct Kept {
        std::string plan_id;
        engine::KillRequest request;
        std::chrono::system_clock::time_point expires;
    };
    void drop_expired(std::chrono::system_clock::time_point now);

    std::chrono::seconds validity_;
    std::size_t capacity_;
    std::deque<Kept> plans_;
};

}  // namespace gpukill::mcp
