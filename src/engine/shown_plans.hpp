// The plans a long-lived door showed, so that a confirmation by plan id through that door
// is one the same caller was shown, lately, and is used once.
//
// A plan id is a content identity (plan_identity.hpp): the same plan has the same id
// through every door and in every gpukill process, which is what lets the fleet plan over
// SSH in one process and act in another, and what the door-parity test compares. So an
// id is no secret and no proof of a preview: anyone can compute one from /proc. Through
// the agent and the MCP server (Interface::agent, Interface::mcp) an id therefore
// confirms only a plan this engine showed to the same actor (interface and name: the
// agent's token, the MCP client) within EngineConfig::plan_confirmation_window, and only
// once; the plan is then built again and must still be the same (expected_plan_id). A
// person at the command line, the guard and the fleet over SSH keep the content check
// alone. Private to src/engine.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <string>
#include <string_view>

#include "model/actor.hpp"

namespace gpukill::engine {

// Whether confirmations by `actor` must name a plan shown to it (agent and MCP).
bool confirms_only_shown_plans(const Actor& actor);

class ShownPlans {
  public:
    using TimePoint = std::chrono::system_clock::time_point;
    static constexpr std::size_t kCapacity = 1024;  // the oldest is forgotten first

    // `actor` was shown plan `plan_id` of `kind` ("kill", "reset") at `now`.
    void shown(std::string_view kind, const std::string& plan_id, const Actor& actor,
               TimePoint now);
    // Takes it out: whether it was shown to `actor` within `window` before `now`.
    bool take(std::string_view kind, const std::string& plan_id, const Actor& actor, TimePoint now,
              std::chrono::seconds window);
    std::size_t size() const { return shown_.size(); }

  private:
    struct Shown {
        std::string kind;
        std::string plan_id;
        std::string actor;
        TimePoint at;
    };
    std::deque<Shown> shown_;
};

}  // namespace gpukill::engine
