#include "detect/signals.hpp"

namespace gpukill::detect {

std::string_view signal_name(Signal signal) {
    switch (signal) {
        case Signal::miner_name:
            return "miner_name";
        case Signal::masquerade:
            return "masquerade";
        case Signal::name_mismatch:
            return "name_mismatch";
        case Signal::stratum_url:
            return "stratum_url";
        case Signal::pool_address:
            return "pool_address";
        case Signal::mining_algorithm:
            return "mining_algorithm";
        case Signal::miner_option:
            return "miner_option";
        case Signal::wallet_address:
            return "wallet_address";
        case Signal::pool_port_connection:
            return "pool_port_connection";
        case Signal::pool_host_connection:
            return "pool_host_connection";
        case Signal::exe_deleted:
            return "exe_deleted";
        case Signal::exe_in_temp_dir:
            return "exe_in_temp_dir";
        case Signal::mining_usage_shape:
            return "mining_usage_shape";
        case Signal::unattended:
            return "unattended";
        case Signal::kernel_thread_name:
            return "kernel_thread_name";
        case Signal::system_daemon_name:
            return "system_daemon_name";
        case Signal::miner_signature:
            return "miner_signature";
        case Signal::busy_pool_connection:
            return "busy_pool_connection";
    }
    return "unknown";
}

std::optional<Signal> signal_from_name(std::string_view name) {
    for (Signal signal : kAllSignals) {
        if (signal_name(signal) == name) return signal;
    }
    return std::nullopt;
}

}  // namespace gpukill::detect
