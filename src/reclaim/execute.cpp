#include "reclaim/execute.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "reclaim/exit_waiter.hpp"
#include "reclaim/outcome_notes.hpp"
#include "reclaim/target_binding.hpp"

namespace gpukill::reclaim {
namespace {

// One bound target: where its result goes and what has happened to it.
struct Slot {
    std::size_t result = 0;  // index into ExecuteResult::targets
    BoundProcess process;
    bool waiting = false;    // signalled and not yet seen to exit
    bool sent_kill = false;  // the signal it last got was SIGKILL
};

Clock::duration to_duration(double seconds) {
    // Negative, NaN and absurd values become 0 s or about four months.
    const double clamped = std::isfinite(seconds) ? std::clamp(seconds, 0.0, 1e7) : 0.0;
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(clamped));
}

double since(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double>(to - from).count();
}

bool continue_after(int signal) {
    return signal != SIGKILL && signal != SIGCONT && signal != SIGSTOP && signal != SIGTSTP &&
           signal != SIGTTIN && signal != SIGTTOU;
}

// One send of a round. A follow-up (SIGCONT after the first signal to a stopped target)
// goes out only when the first signal reached the target, and its failure changes
// nothing: the first signal's outcome stands.
struct RoundSend {
    Slot* slot = nullptr;
    int signal = 0;
    bool follow_up = false;
};

// What one delivered or failed send means for its target.
void apply_send(Slot& slot, TargetResult& target, const SendResult& sent, int signal,
                Clock::time_point t0) {
    switch (sent.status) {
        case SendStatus::sent:
            target.signals_sent.push_back(signal_name(signal));
            slot.waiting = true;
            slot.sent_kill = signal == SIGKILL;
            break;
        case SendStatus::exited:
            // Already exiting: before the first signal it exited on its own; before
            // SIGKILL it was the first signal that ended it.
            if (target.signals_sent.empty()) {
                target.outcome = Outcome::exited;
            } else {
                target.outcome = slot.sent_kill ? Outcome::killed : Outcome::terminated;
                target.seconds = since(t0, Clock::now());
            }
            slot.waiting = false;
            break;
        case SendStatus::denied:
            target.outcome = Outcome::refused;
            target.note = denied_note(target.target.user, signal);
            slot.waiting = false;
            break;
        case SendStatus::failed:
            target.outcome = Outcome::failed;
            target.note =
                "could not send " + signal_name(signal) + ": " + std::strerror(sent.error);
            slot.waiting = false;
            break;
    }
}

// Hands a round's intents to the recorder, which writes them down before it returns:
// called before the round's first system call.
void record_intents(const std::vector<RoundSend>& round, const ExecuteResult& result,
                    const SignalRecorder& recorder) {
    if (round.empty() || !recorder.sending) return;
    std::vector<SignalSend> intents;
    intents.reserve(round.size());
    for (const RoundSend& send : round) intents.push_back({send.slot->result, send.signal});
    recorder.sending(intents, result);
}

// Sends a round back to back (its intents already recorded), then records those
// delivered.
void send_round(const std::vector<RoundSend>& round, ExecuteResult& result, const HostRoots& roots,
                Clock::time_point t0, const SignalRecorder& recorder) {
    std::vector<SignalSend> delivered;
    for (const RoundSend& send : round) {
        Slot& slot = *send.slot;
        if (send.follow_up && !slot.waiting) continue;
        TargetResult& target = result.targets[slot.result];
        const SendResult sent = send_signal(slot.process, roots, send.signal);
        if (send.follow_up) {
            if (sent.status == SendStatus::sent) {
                target.signals_sent.push_back(signal_name(send.signal));
            }
        } else {
            apply_send(slot, target, sent, send.signal, t0);
        }
        if (sent.status == SendStatus::sent) delivered.push_back({slot.result, send.signal});
    }
    if (recorder.sent && !delivered.empty()) recorder.sent(delivered, result);
}

// Waits for the waiting slots up to `deadline`; those seen to exit get their outcome.
void wait_phase(std::vector<Slot>& slots, ExecuteResult& result, const HostRoots& roots,
                Clock::time_point t0, Clock::time_point deadline, const ExecuteOptions& options) {
    std::vector<WaitEntry> entries;
    std::vector<Slot*> owners;
    for (Slot& slot : slots) {
        if (!slot.waiting) continue;
        entries.push_back(WaitEntry{.process = &slot.process});
        owners.push_back(&slot);
    }
    wait_for_exits(entries, deadline, roots, options.progress, options.interrupted);
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (!entries[i].exited_at) continue;
        Slot& slot = *owners[i];
        TargetResult& target = result.targets[slot.result];
        target.outcome = slot.sent_kill ? Outcome::killed : Outcome::terminated;
        target.seconds = since(t0, *entries[i].exited_at);
        slot.waiting = false;
    }
}

ExecuteResult refuse_all(const KillPlan& plan, ExecuteResult result) {
    const std::string note =
        plan.aborted()
            ? "not signalled: a PID named explicitly was refused, so nothing is signalled"
            : "not signalled: the selectors may match many processes; confirm with --batch";
    for (TargetResult& target : result.targets) {
        target.outcome = Outcome::refused;
        target.note = note;
    }
    return result;
}

}  // namespace

ExecuteResult execute_plan(const KillPlan& plan, const HostRoots& roots,
                           const ExecuteOptions& options, const SignalRecorder& recorder) {
    const Clock::time_point start = Clock::now();
    ExecuteResult result;
    for (const PlannedTarget& target : plan.targets) {
        result.targets.push_back(TargetResult{.target = target});
    }
    if (plan.aborted() || plan.needs_batch_confirmation) return refuse_all(plan, std::move(result));

    std::vector<Slot> slots;
    for (std::size_t i = 0; i < plan.targets.size(); ++i) {
        TargetResult& target = result.targets[i];
        Binding binding = bind_process(plan.targets[i].identity, roots, options.use_pidfd);
        switch (binding.status) {
            case BindStatus::bound:
                slots.push_back(Slot{.result = i, .process = std::move(binding.process)});
                break;
            case BindStatus::gone:
            case BindStatus::reused:
                target.outcome = Outcome::gone;
                if (!binding.note.empty()) target.note = binding.note;
                break;
            case BindStatus::zombie:
                target.outcome = Outcome::exited;
                break;
            case BindStatus::failed:
                target.outcome = Outcome::failed;
                target.note = "could not bind to the process: " + binding.note;
                break;
        }
    }

    std::vector<RoundSend> first;
    for (Slot& slot : slots) first.push_back({&slot, options.first_signal, false});
    if (continue_after(options.first_signal)) {
        for (Slot& slot : slots) {
            if (slot.process.state == 'T') first.push_back({&slot, SIGCONT, true});
        }
    }
    record_intents(first, result, recorder);
    // The first signal goes out now: elapsed times and the timeout run from here, not
    // from before the intents' sync.
    const Clock::time_point t0 = Clock::now();
    send_round(first, result, roots, t0, recorder);
    wait_phase(slots, result, roots, t0, t0 + to_duration(options.timeout_seconds), options);

    const auto interrupted = [&] { return options.interrupted && options.interrupted(); };
    if (options.force && !interrupted()) {
        std::vector<Slot> survivors;
        for (Slot& slot : slots) {
            if (slot.waiting) survivors.push_back(std::move(slot));
        }
        slots = std::move(survivors);
        std::vector<RoundSend> kills;
        for (Slot& slot : slots) kills.push_back({&slot, SIGKILL, false});
        record_intents(kills, result, recorder);
        send_round(kills, result, roots, t0, recorder);
        wait_phase(slots, result, roots, t0,
                   Clock::now() + to_duration(options.kill_timeout_seconds), options);
    }

    for (Slot& slot : slots) {
        if (!slot.waiting) continue;
        TargetResult& target = result.targets[slot.result];
        auto live = live_state(slot.process.identity, roots);
        if (!live) {  // exited in the moment after the wait gave up
            target.outcome = slot.sent_kill ? Outcome::killed : Outcome::terminated;
            target.seconds = since(t0, Clock::now());
            continue;
        }
        target.outcome = Outcome::survived;
        target.note = interrupted() ? std::string(
                                          "interrupted before it exited; nothing more "
                                          "was sent")
                                    : survivor_note(live->state, options, slot.sent_kill);
    }
    result.seconds = since(start, Clock::now());
    return result;
}

void note_unreaped_zombies(std::vector<TargetResult>& results, const HostRoots& roots) {
    for (TargetResult& target : results) {
        const bool ended = target.outcome == Outcome::exited ||
                           target.outcome == Outcome::terminated ||
                           target.outcome == Outcome::killed;
        if (!ended) continue;
        // Init reaps every orphan in its own time (seconds, in some containers): only
        // a living parent that has not reaped is worth a note. No waiting for it.
        auto parent = unreaped_zombie_parent(target.target.identity, roots);
        if (parent && *parent != 1) target.note = zombie_note(*parent);
    }
}

}  // namespace gpukill::reclaim
