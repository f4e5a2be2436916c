// The engine's requests in the planner's terms (engine-internal): a request's match
// selectors and PIDs as reclaim::Selectors, whose `gpu` is the resolved index the
// caller fills in.
#pragma once

#include "engine/kill.hpp"
#include "engine/selectors.hpp"
#include "reclaim/select.hpp"

namespace gpukill::engine {

reclaim::Selectors plan_selectors(const MatchSelectors& selectors);
reclaim::Selectors plan_selectors(const KillRequest& request);

}  // namespace gpukill::engine
