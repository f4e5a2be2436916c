// The rogue-detection signals: each is one kind of evidence with one weight in the
// configuration. Names are the snake_case words used in the YAML `weights:` map, the
// JSON `evidence[].signal` field and the audit log (docs/ROGUE.md).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace gpukill::detect {

enum class Signal {
    miner_name,            // executable, comm or argv[0] is a known miner program
    masquerade,            // claims a name (kworker, python, sshd...) its executable is not
    name_mismatch,         // comm and argv[0] both differ from the executable's name
    stratum_url,           // stratum+tcp:// and friends in the command line
    pool_address,          // -o/--url HOST:PORT with a pool port, or a listed pool host
    mining_algorithm,      // --algo/-a with a mining algorithm
    miner_option,          // --donate-level and other options only miners take
    wallet_address,        // a token shaped like a Monero/Ethereum/Bitcoin/Ravencoin address
    pool_port_connection,  // an outgoing TCP connection to a known pool port
    pool_host_connection,  // an outgoing TCP connection to a listed pool IP address
    exe_deleted,           // the executable was deleted after the process started
    exe_in_temp_dir,       // the executable lives in /tmp, /dev/shm or /var/tmp
    mining_usage_shape,    // history: busy for long with small, flat memory
    unattended,            // parent or session gone, running for long
    kernel_thread_name,    // a user process holding a GPU under a kernel thread's name
    system_daemon_name,    // named like a system daemon, but not the system's program
    miner_signature,       // the executable's bytes carry strings mining programs carry
    busy_pool_connection,  // a pool-port connection while the GPU was busy for long
};

inline constexpr std::size_t kSignalCount = 18;

inline constexpr std::array<Signal, kSignalCount> kAllSignals = {
    Signal::miner_name,           Signal::masquerade,      Signal::name_mismatch,
    Signal::stratum_url,          Signal::pool_address,    Signal::mining_algorithm,
    Signal::miner_option,         Signal::wallet_address,  Signal::pool_port_connection,
    Signal::pool_host_connection, Signal::exe_deleted,     Signal::exe_in_temp_dir,
    Signal::mining_usage_shape,   Signal::unattended,      Signal::kernel_thread_name,
    Signal::system_daemon_name,   Signal::miner_signature, Signal::busy_pool_connection,
};

std::string_view signal_name(Signal signal);
std::optional<Signal> signal_from_name(std::string_view name);

}  // namespace gpukill::detect
