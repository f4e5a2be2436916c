#include "engine/act_records.hpp"

#include "audit/reclaim_records.hpp"

namespace gpukill::engine {

reclaim::ActRecorder act_recorder(const audit::Invocation& who, SystemClock clock,
                                  AppendRecords append, std::function<void()> executed) {
    // Each callback holds its own copies: the recorder outlives this call.
    return reclaim::ActRecorder{
        .signals = {.sending =
                        [who, clock, append](const std::vector<reclaim::SignalSend>& sends,
                                             const reclaim::ExecuteResult& so_far) {
                            append(audit::signal_intent_records(who, sends, so_far, clock()));
                        },
                    .sent =
                        [who, clock, append](const std::vector<reclaim::SignalSend>& sends,
                                             const reclaim::ExecuteResult& so_far) {
                            append(audit::signalled_records(who, sends, so_far, clock()));
                        }},
        .executed =
            [who, clock, append, executed](const reclaim::ExecuteResult& done) {
                if (executed) executed();
                append(audit::result_records(who, done, clock()));
            },
        .verified =
            [who, clock, append](const std::vector<reclaim::GpuRelease>& releases) {
                append(audit::verification_records(who, releases, clock()));
            }};
}

}  // namespace gpukill::engine
