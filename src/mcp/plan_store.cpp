#include "mcp/plan_store.hpp"

#include <algorithm>

namespace gpukill::mcp {

std::chrono::system_clock::time_point PlanStore::keep(const std::string& plan_id,
                                                      engine::KillRequest request,
                                                      std::chrono::system_clock::time_point now) {
    drop_expired(now);
    std::erase_if(plans_, [&](const Kept& kept) { return kept.plan_id == plan_id; });
    while (plans_.size() >= capacity_) plans_.pop_front();
    const auto expires = now + validity_;
    plans_.push_back(Kept{plan_id, std::move(request), expires});
    return expires;
}

std::optional<engine::KillRequest> PlanStore::take(const std::string& plan_id,
                                                   std::chrono::system_clock::time_point now) {
    drop_expired(now);
    const auto found = std::find_if(plans_.begin(), plans_.end(),
                                    [&](const Kept& kept) { return kept.plan_id == plan_id; });
    if (found == plans_.end()) return std::nullopt;
    engine::KillRequest request = std::move(found->request);
    plans_.erase(found);
    return request;
}

void PlanStore::drop_expired(std::chrono::system_clock::time_point now) {
    std::erase_if(plans_, [&](const Kept& kept) { return kept.expires <= now; });
}

}  // namespace gpukill::mcp
