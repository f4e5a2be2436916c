// Signal names as kill(1) accepts them: "SIGTERM", "TERM", "term" or "15". Only the 31
// standard signals: 0 merely probes for existence, and real-time signals have no
// standard meaning to a workload, so neither is accepted as a way to stop a process.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "model/parse_util.hpp"
#include "reclaim/execute.hpp"

namespace gpukill::reclaim {
namespace {

struct SignalEntry {
    const char* name;  // without "SIG"
    int number;
};

// Linux numbering (these are the values on x86, arm and most other architectures; the
// constants from <signal.h> keep it right where they differ). Aliases follow the name
// kill(1) prints for the number.
constexpr std::array kSignals{
    SignalEntry{"HUP", SIGHUP},
    SignalEntry{"INT", SIGINT},
    SignalEntry{"QUIT", SIGQUIT},
    SignalEntry{"ILL", SIGILL},
    SignalEntry{"TRAP", SIGTRAP},
    SignalEntry{"ABRT", SIGABRT},
    SignalEntry{"BUS", SIGBUS},
    SignalEntry{"FPE", SIGFPE},
    SignalEntry{"KILL", SIGKILL},
    SignalEntry{"USR1", SIGUSR1},
    SignalEntry{"SEGV", SIGSEGV},
    SignalEntry{"USR2", SIGUSR2},
    SignalEntry{"PIPE", SIGPIPE},
    SignalEntry{"ALRM", SIGALRM},
    SignalEntry{"TERM", SIGTERM},
    SignalEntry{"STKFLT", SIGSTKFLT},
    SignalEntry{"CHLD", SIGCHLD},
    SignalEntry{"CONT", SIGCONT},
    SignalEntry{"STOP", SIGSTOP},
    SignalEntry{"TSTP", SIGTSTP},
    SignalEntry{"TTIN", SIGTTIN},
    SignalEntry{"TTOU", SIGTTOU},
    SignalEntry{"URG", SIGURG},
    SignalEntry{"XCPU", SIGXCPU},
    SignalEntry{"XFSZ", SIGXFSZ},
    SignalEntry{"VTALRM", SIGVTALRM},
    SignalEntry{"PROF", SIGPROF},
    SignalEntry{"WINCH", SIGWINCH},
    SignalEntry{"IO", SIGIO},
    SignalEntry{"PWR", SIGPWR},
    SignalEntry{"SYS", SIGSYS},
    // Other names for the same signals, accepted on input only.
    SignalEntry{"IOT", SIGABRT},
    SignalEntry{"POLL", SIGIO},
    SignalEntry{"CLD", SIGCHLD},
};
constexpr std::size_t kCanonicalCount = kSignals.size() - 3;

std::string upper(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return out;
}

}  // namespace

Result<int> parse_signal_name(std::string_view text) {
    const std::string quoted = "\"" + std::string(text) + "\"";
    if (!text.empty() && text::is_digit(text.front())) {
        auto number = text::parse_int<int>(text);
        if (number && *number == 0) {
            return fail("signal 0 only tests whether a process exists; it stops nothing");
        }
        for (std::size_t i = 0; number && i < kCanonicalCount; ++i) {
            if (kSignals[i].number == *number) return *number;
        }
        return fail(quoted + " is not a standard signal number (1-31)");
    }
    std::string name = upper(text);
    if (name.starts_with("SIG")) name.erase(0, 3);
    for (const SignalEntry& entry : kSignals) {
        if (name == entry.name) return entry.number;
    }
    return fail(quoted + " is not a signal name (e.g. TERM, SIGKILL, 15)");
}

std::string signal_name(int signal) {
    for (std::size_t i = 0; i < kCanonicalCount; ++i) {
        if (kSignals[i].number == signal) return std::string("SIG") + kSignals[i].name;
    }
    return "signal " + std::to_string(signal);
}

}  // namespace gpukill::reclaim
