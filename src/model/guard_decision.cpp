#include "model/guard_decision.hpp"

#include <algorithm>

namespace gpukill::guard {

const char* to_string(Verdict verdict) {
    switch (verdict) {
        case Verdict::warn:
            return "warn";
        case Verdict::in_grace:
            return "in_grace";
        case Verdict::warned:
            return "warned";
        case Verdict::terminate:
            return "terminate";
        case Verdict::kill:
            return "kill";
        case Verdict::protected_process:
            return "protected";
    }
    return "?";
}

bool acts(Verdict verdict) {
    return verdict == Verdict::terminate || verdict == Verdict::kill;
}

std::vector<DueAction> due_actions(const std::vector<Decision>& decisions) {
    std::vector<DueAction> due;
    for (const Decision& decision : decisions) {
        if (!acts(decision.verdict)) continue;
        auto same = std::find_if(due.begin(), due.end(), [&](const DueAction& action) {
            return action.identity == decision.identity;
        });
        if (same == due.end()) {
            due.push_back(DueAction{decision.identity, decision.verdict, {&decision}});
            continue;
        }
        if (decision.verdict == Verdict::kill) same->verdict = Verdict::kill;
        same->because.push_back(&decision);
    }
    std::sort(due.begin(), due.end(), [](const DueAction& a, const DueAction& b) {
        return a.identity.pid < b.identity.pid;
    });
    return due;
}

}  // namespace gpukill::guard
