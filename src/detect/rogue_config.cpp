#include "detect/rogue_config.hpp"

namespace gpukill::detect {

// Weights are chosen so that no single weak sign reports a process on its own (a renamed
// comm, a deleted executable after a package upgrade, a connection to a port such as
// 8888 that other software uses too, a job left running under nohup), while any sign
// that only mining explains (a miner's name, a stratum URL, a wallet) reaches the
// reporting threshold alone. docs/ROGUE.md explains each.
RogueConfig default_rogue_config() {
    RogueConfig config;
    config.set_weight(Signal::miner_name, 60);
    config.set_weight(Signal::masquerade, 40);
    config.set_weight(Signal::name_mismatch, 10);
    config.set_weight(Signal::stratum_url, 60);
    config.set_weight(Signal::pool_address, 30);
    config.set_weight(Signal::mining_algorithm, 30);
    config.set_weight(Signal::miner_option, 30);
    config.set_weight(Signal::wallet_address, 40);
    config.set_weight(Signal::pool_port_connection, 25);
    config.set_weight(Signal::pool_host_connection, 60);
    config.set_weight(Signal::exe_deleted, 30);
    config.set_weight(Signal::exe_in_temp_dir, 30);
    config.set_weight(Signal::mining_usage_shape, 40);
    config.set_weight(Signal::unattended, 15);
    // Impossible for an honest process: a kernel thread has no executable and no files, and
    // a daemon that never touches a GPU does not start doing so from a copy elsewhere.
    config.set_weight(Signal::kernel_thread_name, 60);
    config.set_weight(Signal::system_daemon_name, 60);
    // Several distinct miner strings in the program itself (min_signatures).
    config.set_weight(Signal::miner_signature, 60);
    // With pool_port_connection (25) it reaches the threshold: a port miners use alone is
    // common (Jupyter's 8888), a full GPU for long alone is any training job; both together
    // from one process are a miner's working life.
    config.set_weight(Signal::busy_pool_connection, 20);

    config.miner_names = {
        "xmrig*",       "xmr-stak*",    "t-rex",        "trex",         "nbminer",
        "lolminer",     "gminer",       "miner",        "phoenixminer", "ethminer",
        "teamredminer", "nanominer",    "bzminer",      "ccminer",      "cgminer",
        "bfgminer",     "cpuminer*",    "minerd",       "srbminer*",    "excavator",
        "claymore*",    "ethdcrminer*", "rigel",        "onezerominer", "wildrig*",
        "kawpowminer",  "z-enemy",      "cryptodredge", "miniz",        "xmr-node-proxy",
    };
    config.masquerade_names = {
        "python",      "python2",   "python3",
        "kworker*",    "kthreadd",  "ksoftirqd*",
        "kswapd*",     "kdevtmpfs", "migration*",
        "rcu_*",       "watchdog*", "systemd*",
        "sshd",        "bash",      "sh",
        "dash",        "zsh",       "init",
        "cron",        "crond",     "atd",
        "dbus-daemon", "rsyslogd",  "containerd*",
        "dockerd",     "kubelet",   "nvidia-persistenced",
    };
    config.miner_options = {
        "--donate-level",
        "--donate-over-proxy",
        "--dev-fee",
        "--devfee",
        "--no-devfee",
        "--disable-dev-fee",
        "--nicehash",
        "--rig-id",
        "--randomx-1gb-pages",
        "--randomx-mode",
        "--cpu-max-threads-hint",
    };
    config.algorithms = {
        "randomx",    "rx/0",      "rx/wow",     "rx/arq",      "cn/r",        "cn/0",
        "cn/1",       "cn/2",      "cn-heavy",   "cn/half",     "cryptonight", "argon2/chukwa",
        "ghostrider", "ethash",    "etchash",    "kawpow",      "autolykos2",  "kheavyhash",
        "octopus",    "firopow",   "equihash",   "beamhash",    "zhash",       "cuckatoo32",
        "cuckaroo29", "blake3",    "sha256d",    "scrypt",      "x16r",        "x16rv2",
        "x25x",       "progpow",   "dynexsolve", "karlsenhash", "pyrinhash",   "nexapow",
        "ironfish",   "heavyhash", "ubqhash",    "zelhash",
    };
    config.pool_ports = {2222, 3333, 4444, 5555, 7777, 8888, 9999, 14433, 14444, 45700};
    config.pool_hosts = {
        "supportxmr.com",  "moneroocean.stream", "nanopool.org",    "2miners.com",    "f2pool.com",
        "ethermine.org",   "herominers.com",     "minexmr.com",     "hashvault.pro",  "c3pool.com",
        "unmineable.com",  "nicehash.com",       "flypool.org",     "woolypooly.com", "hiveon.net",
        "kryptex.network", "zpool.ca",           "mining-dutch.nl", "prohashing.com", "xmrpool.eu",
        "p2pool.io",       "viabtc.com",         "antpool.com",     "poolin.com",
    };
    config.temp_dirs = {"/tmp", "/dev/shm", "/var/tmp"};
    config.kernel_thread_names = {
        "kworker*",     "ksoftirqd*", "kthreadd",   "kswapd*",     "kcompactd*",  "khugepaged",
        "ksmd",         "kauditd",    "kdevtmpfs",  "kblockd",     "kintegrityd", "khungtaskd",
        "kthrotld",     "oom_reaper", "writeback",  "migration/*", "rcu_*",       "cpuhp/*",
        "idle_inject*", "irq/*",      "watchdog/*", "watchdogd",   "jbd2/*",      "xfsaild/*",
        "scsi_eh_*",    "kcryptd*",   "kstrp",      "netns",       "kaluad",      "ipv6_addrconf",
    };
    config.system_daemon_names = {
        "sshd",      "cron",         "crond",        "atd",
        "systemd*",  "dbus-daemon",  "dbus-broker*", "rsyslogd",
        "syslog-ng", "polkitd",      "chronyd",      "ntpd",
        "cupsd",     "avahi-daemon", "udisksd",      "accounts-daemon",
        "agetty",    "getty",
    };
    config.system_program_dirs = {"/usr/bin", "/usr/sbin", "/usr/lib", "/usr/libexec",
                                  "/bin",     "/sbin",     "/lib",     "/lib64"};
    config.miner_signatures = {
        // Pool protocols: URL schemes and stratum's JSON-RPC methods.
        "stratum+tcp",
        "stratum+ssl",
        "stratum2+tcp",
        "mining.subscribe",
        "mining.authorize",
        "mining.submit",
        "mining.set_difficulty",
        "eth_submitLogin",
        "eth_submitWork",
        // Mining algorithms. Not "ethash": "gethash" carries it, in python3.11, node, gpg
        // and half of /usr/lib; "daggerhashimoto" is its name in pools and miners.
        "randomx",
        "cryptonight",
        "daggerhashimoto",
        "etchash",
        "kawpow",
        "autolykos",
        "kheavyhash",
        "progpow",
        "firopow",
        "cuckatoo",
        "beamhash",
        "ghostrider",
        "argon2/chukwa",
        // Miner projects and their options.
        "xmrig",
        "xmr-stak",
        "lolminer",
        "phoenixminer",
        "nbminer",
        "teamredminer",
        "nanominer",
        "bzminer",
        "srbminer",
        "ccminer",
        "cgminer",
        "ethminer",
        "cpuminer",
        "donate-level",
        "nicehash",
    };
    return config;
}

}  // namespace gpukill::detect
