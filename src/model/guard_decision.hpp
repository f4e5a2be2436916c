// What the guard decided about one process for one rule, with the numbers that led
// there: what `guard test` prints and what `guard run` acts on and audits.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/guard_policy.hpp"
#include "model/process.hpp"

namespace gpukill::guard {

enum class Verdict {
    warn,               // first breach of this rule: warn now (a grace period starts)
    in_grace,           // warned before and still in breach: acted on when the grace ends
    warned,             // a warn rule that already warned: nothing more to do
    terminate,          // SIGTERM now (SIGKILL when it survives terminate_timeout)
    kill,               // SIGKILL now
    protected_process,  // breaks the rule, but is protected: never touched
};
const char* to_string(Verdict verdict);  // "warn", "in_grace", ..., "protected"

struct Decision {
    ProcessIdentity identity;
    std::string name;  // comm
    std::string user;
    std::optional<uid_t> uid;
    std::vector<unsigned> gpus;  // the GPUs it holds
    std::string rule_id;         // where the rule is in the policy: "users.alice.memory_limit"
    Enforcement enforcement;     // the rule's action and grace period
    std::string why;             // one line with the numbers
    Verdict verdict = Verdict::warn;
    std::optional<std::int64_t> warned_at_unix_ms;  // when the first warning went out
    std::optional<std::int64_t> acts_at_unix_ms;    // when the grace period ends
    std::string protected_because;                  // for protected_process
};

// Whether the verdict signals the process now.
bool acts(Verdict verdict);

// One entry per process that a decision signals now: the strongest verdict (kill over
// terminate) and every decision behind it.
struct DueAction {
    ProcessIdentity identity;
    Verdict verdict = Verdict::terminate;
    std::vector<const Decision*> because;
};
std::vector<DueAction> due_actions(const std::vector<Decision>& decisions);

}  // namespace gpukill::guard
