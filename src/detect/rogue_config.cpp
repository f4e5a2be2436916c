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
    return config;
}

}  // namespace gpukill::detect
