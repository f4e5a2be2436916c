#include "process_table.hpp"

#include <fmt/format.h>

#include <random>
#include <string>

namespace gpukill::bench {
namespace {

class Generator {
  public:
    explicit Generator(std::uint64_t seed) : random_(seed) {}

    std::size_t below(std::size_t n) { return static_cast<std::size_t>(random_() % n); }
    std::string hex(std::size_t digits) {
        std::string text;
        for (std::size_t i = 0; i < digits; ++i) text.push_back("0123456789abcdef"[below(16)]);
        return text;
    }
    template <std::size_t N>
    const char* pick(const char* const (&choices)[N]) {
        return choices[below(N)];
    }

  private:
    std::mt19937_64 random_;
};

ProcessInfo process(std::string comm, std::vector<std::string> cmdline) {
    ProcessInfo info;
    info.comm = std::move(comm);
    info.cmdline = std::move(cmdline);
    return info;
}

const char* const kUsers[] = {"alice", "bob", "chen", "dana", "eve", "farid", "grace"};
const char* const kModels[] = {"llama-3-8b", "llama-3-70b", "mistral-7b",      "vit-h-14",
                               "bert-large", "sdxl-base",   "whisper-large-v3"};

ProcessInfo kernel_thread(Generator& g) {
    const std::size_t cpu = g.below(128);
    const char* const kinds[] = {"kworker/{}:{}", "ksoftirqd/{}", "migration/{}",
                                 "rcuop/{}",      "cpuhp/{}",     "irq/{}-nvidia"};
    const std::string format = g.pick(kinds);
    ProcessInfo info = process(fmt::format(fmt::runtime(format), cpu, g.below(4)), {});
    info.kernel_thread = true;
    return info;
}

ProcessInfo service(Generator& g) {
    switch (g.below(9)) {
        case 0:
            return process("systemd-journal", {"/lib/systemd/systemd-journald"});
        case 1:
            return process("sshd", {fmt::format("sshd: {}@pts/{}", g.pick(kUsers), g.below(40))});
        case 2:
            return process("containerd-shim",
                           {"/usr/bin/containerd-shim-runc-v2", "-namespace", "moby", "-id",
                            g.hex(64), "-address", "/run/containerd/containerd.sock"});
        case 3:
            return process("dockerd", {"/usr/bin/dockerd", "-H", "fd://",
                                       "--containerd=/run/containerd/containerd.sock"});
        case 4:
            return process("nvidia-persiste",
                           {"/usr/bin/nvidia-persistenced", "--user", "nvidia-persistenced",
                            "--no-persistence-mode", "--verbose"});
        case 5:
            return process("dcgm-exporter", {"/usr/bin/dcgm-exporter", "-f",
                                             "/etc/dcgm-exporter/dcp-metrics-included.csv"});
        case 6:
            return process("node_exporter",
                           {"/usr/bin/prometheus-node-exporter",
                            "--collector.textfile.directory=/var/lib/node_exporter"});
        case 7:
            return process("slurmstepd",
                           {fmt::format("slurmstepd: [{}.batch]", 400000 + g.below(9000))});
        default:
            return process("nginx", {"nginx: worker process"});
    }
}

ProcessInfo shell(Generator& g) {
    const std::string user = g.pick(kUsers);
    switch (g.below(5)) {
        case 0:
            return process("bash", {"-bash"});
        case 1:
            return process("tmux: server", {"tmux", "new", "-s", user});
        case 2:
            return process("vim", {"vim", fmt::format("/home/{}/src/train.py", user)});
        case 3:
            return process("htop", {"htop"});
        default:
            return process("watch", {"watch", "-n", "1", "nvidia-smi"});
    }
}

// A training rank, or one of its data-loader workers: the same command line.
ProcessInfo training(Generator& g) {
    const std::string user = g.pick(kUsers);
    const std::string model = g.pick(kModels);
    const std::size_t run = g.below(10000);
    switch (g.below(4)) {
        case 0:
            return process("python3",
                           {"/opt/conda/envs/torch/bin/python3", "-u", "train.py", "--config",
                            fmt::format("configs/{}.yaml", model), "--batch-size",
                            std::to_string(8 << g.below(4)), "--lr", "3e-4", "--output_dir",
                            fmt::format("/scratch/{}/run-{:04}", user, run),
                            fmt::format("--local_rank={}", g.below(8))});
        case 1:
            return process(
                "pt_main_thread",
                {"/usr/bin/python3", "-m", "torch.distributed.run", "--nproc_per_node=8",
                 "--nnodes=4", fmt::format("--rdzv_endpoint=node{:03}:29500", g.below(64)),
                 "finetune.py", "--model_name_or_path", fmt::format("/models/{}", model),
                 "--deepspeed", "ds_zero3.json"});
        case 2:
            return process("python", {"python", "-c",
                                      "from multiprocessing.spawn import spawn_main; "
                                      "spawn_main(tracker_fd=5, pipe_handle=11)",
                                      "--multiprocessing-fork"});
        default:
            return process("accelerate", {"/home/" + user + "/.venv/bin/python",
                                          "/home/" + user + "/.venv/bin/accelerate", "launch",
                                          "--multi_gpu", "--mixed_precision=bf16", "sft.py"});
    }
}

ProcessInfo other(Generator& g) {
    const std::string user = g.pick(kUsers);
    switch (g.below(4)) {
        case 0:
            return process("python",
                           {"/opt/conda/bin/python", "-m", "ipykernel_launcher", "-f",
                            fmt::format("/home/{}/.local/share/jupyter/runtime/"
                                        "kernel-{}-{}-{}-{}-{}.json",
                                        user, g.hex(8), g.hex(4), g.hex(4), g.hex(4), g.hex(12))});
        case 1:
            return process("python3", {"python3", "-m", "vllm.entrypoints.openai.api_server",
                                       "--model", fmt::format("/models/{}", g.pick(kModels)),
                                       "--tensor-parallel-size", "8", "--port", "8000"});
        case 2: {
            std::string classpath;
            for (std::size_t i = 0; i < 120; ++i) {
                if (!classpath.empty()) classpath.push_back(':');
                classpath += fmt::format("/opt/spark/jars/spark-lib-{:03}-3.5.1.jar", i);
            }
            return process(
                "java", {"/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "-Xmx8g", "-cp", classpath,
                         "org.apache.spark.deploy.worker.Worker", "spark://master:7077"});
        }
        default:
            return process("node", {"/usr/bin/node", fmt::format("/home/{}/.vscode-server/bin/"
                                                                 "{}/out/server-main.js",
                                                                 user, g.hex(40))});
    }
}

}  // namespace

std::vector<ProcessInfo> gpu_host_process_table(std::size_t count, std::uint64_t seed) {
    Generator g(seed);
    std::vector<ProcessInfo> table;
    table.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        // Roughly a training node's mix: a third kernel threads, a third training ranks
        // and workers, the rest services, shells and the rest.
        const std::size_t kind = g.below(100);
        if (kind < 33) {
            table.push_back(kernel_thread(g));
        } else if (kind < 66) {
            table.push_back(training(g));
        } else if (kind < 80) {
            table.push_back(service(g));
        } else if (kind < 92) {
            table.push_back(shell(g));
        } else {
            table.push_back(other(g));
        }
        table.back().pid = static_cast<pid_t>(1000 + i);
    }
    // A miner that renamed itself, as the rogue scan's patterns look for.
    if (table.empty()) return table;
    table[count / 2] = process(
        "kworker/u8:2", {"/tmp/.cache/.x/kworker", "-o", "stratum+tcp://pool.example.net:3333",
                         "-u", "4A" + g.hex(93), "--cuda", "-k"});
    return table;
}

}  // namespace gpukill::bench
