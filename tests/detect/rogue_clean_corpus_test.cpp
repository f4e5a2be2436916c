// Ordinary GPU work must stay clean: real command lines of training and serving jobs
// (torchrun, DeepSpeed, vLLM, Triton, Jupyter, PyTorch's ImageNet example), password
// recovery (hashcat), rendering (Blender) and video encoding (ffmpeg with NVENC), run
// from their usual executables, with the configuration files they name and the busy
// history they leave, give no finding, and none of them raises the content or
// borrowed-name signals. tests/integration/rogue_test.cpp runs the same corpus as real
// processes.
#include <gtest/gtest.h>

#include "detect/assessment.hpp"
#include "rogue_test_support.hpp"

namespace gpukill::detect {
namespace {

using rogue_test::has;
using rogue_test::process;

struct CleanJob {
    std::string what;
    std::string comm;
    std::string exe;
    std::vector<std::string> argv;
    std::vector<ArgumentFile> files;
};

std::vector<CleanJob> clean_corpus() {
    return {
        {"torchrun",
         "torchrun",
         "/usr/bin/python3.11",
         {"/usr/bin/python3", "/usr/local/bin/torchrun", "--nnodes=2", "--nproc_per_node=8",
          "--rdzv_backend=c10d", "--rdzv_endpoint=10.0.0.1:29400", "--rdzv_id=job42", "train.py",
          "--config", "configs/llama.yaml"},
         {{"configs/llama.yaml",
           "model:\n  name: llama-7b\n  dim: 4096\noptim:\n  lr: 3.0e-4\n  warmup: 2000\n"
           "data:\n  path: /data/c4\n  url: https://huggingface.co/datasets/c4\nseed: 1234\n",
           false}}},
        {"torchrun worker",
         "pt_main_thread",
         "/usr/bin/python3.11",
         {"/usr/bin/python3", "-u", "train.py", "--local-rank=3", "--config", "configs/llama.yaml"},
         {}},
        {"deepspeed",
         "python3",
         "/usr/bin/python3.11",
         {"/usr/bin/python3", "-u", "-m", "deepspeed.launcher.launch",
          "--world_info=eyJsb2NhbGhvc3QiOiBbMCwgMV19", "--master_addr=127.0.0.1",
          "--master_port=29500", "--enable_each_rank_log=None", "train.py", "--deepspeed",
          "--deepspeed_config", "ds_config.json"},
         {}},
        {"vLLM",
         "python3",
         "/usr/bin/python3.11",
         {"python3", "-m", "vllm.entrypoints.openai.api_server", "--model",
          "meta-llama/Meta-Llama-3-8B-Instruct", "--tensor-parallel-size", "2", "--host", "0.0.0.0",
          "--port", "8000", "--gpu-memory-utilization", "0.9"},
         {}},
        {"Triton",
         "tritonserver",
         "/opt/tritonserver/bin/tritonserver",
         {"tritonserver", "--model-repository=/models", "--http-port=8000", "--grpc-port=8001",
          "--metrics-port=8002", "--log-verbose=1"},
         {}},
        {"Jupyter",
         "jupyter-lab",
         "/usr/bin/python3.11",
         {"/usr/bin/python3", "/usr/local/bin/jupyter-lab", "--ip=0.0.0.0", "--port=8888",
          "--no-browser", "--allow-root", "--config=/etc/jupyter/jupyter_server_config.py"},
         {{"/etc/jupyter/jupyter_server_config.py",
           "c = get_config()\nc.ServerApp.ip = '0.0.0.0'\nc.ServerApp.port = 8888\n"
           "c.ServerApp.open_browser = False\nc.ServerApp.token = ''\n",
           false}}},
        {"Jupyter kernel",
         "python3",
         "/usr/bin/python3.11",
         {"/usr/bin/python3", "-m", "ipykernel_launcher", "-f",
          "/root/.local/share/jupyter/runtime/kernel-3f2b.json"},
         {}},
        {"ImageNet example",
         "python",
         "/usr/bin/python3.11",
         {"python", "main.py", "-a", "resnet50", "--dist-url", "tcp://224.66.41.62:23456",
          "--dist-backend", "nccl", "--multiprocessing-distributed", "--world-size", "1", "--rank",
          "0", "/data/imagenet"},
         {}},
        {"hashcat",
         "hashcat",
         "/usr/bin/hashcat",
         {"hashcat", "-m", "22000", "-a", "3", "-w", "4", "-O", "capture.hc22000",
          "?d?d?d?d?d?d?d?d"},
         {}},
        {"Blender",
         "blender",
         "/opt/blender/blender",
         {"/opt/blender/blender", "-b", "scene.blend", "-E", "CYCLES", "-o", "//render/frame_####",
          "-a", "--", "--cycles-device", "OPTIX"},
         {}},
        {"ffmpeg NVENC",
         "ffmpeg",
         "/usr/bin/ffmpeg",
         {"ffmpeg", "-hwaccel", "cuda", "-hwaccel_output_format", "cuda", "-i", "input.mp4", "-c:v",
          "h264_nvenc", "-preset", "p4", "-b:v", "5M", "-c", "copy", "output.mp4"},
         {}},
    };
}

// An hour at full load with a training job's memory: busy, but not a miner's shape.
std::vector<history::ProcessSample> an_hour_of_training() {
    std::vector<history::ProcessSample> samples;
    for (int i = 0; i <= 60; ++i) {
        samples.push_back(
            {.time_unix_ms = i * 60'000,
             .memory_bytes = (20ull << 30) + (static_cast<std::uint64_t>(i % 7) << 30),
             .gpu_utilization_percent = 100,
             .gpu_process_count = 1});
    }
    return samples;
}

TEST(RogueCleanCorpus, OrdinaryGpuWorkGivesNoFinding) {
    const RogueConfig config = default_rogue_config();
    for (const CleanJob& job : clean_corpus()) {
        ProcessFacts facts;
        facts.holder.info = process(job.comm, job.exe, job.argv);
        facts.holder.gpus.push_back({.gpu_index = 0, .memory_bytes = 20ull << 30});
        facts.network = NetworkFacts{};
        facts.history = an_hour_of_training();
        facts.executable_file = ExecutableFile{0, false};
        facts.executable_scan = ExecutableScan{{}, 6u << 20, false};
        facts.config_files = job.files;
        const Assessment assessment = assess(facts, config);
        EXPECT_LT(assessment.score, config.report_threshold) << job.what;
        for (Signal signal :
             {Signal::kernel_thread_name, Signal::system_daemon_name, Signal::miner_signature,
              Signal::busy_pool_connection, Signal::stratum_url, Signal::pool_address,
              Signal::mining_algorithm, Signal::miner_option, Signal::wallet_address}) {
            EXPECT_FALSE(has(assessment.evidence, signal))
                << job.what << ": " << signal_name(signal);
        }
    }
}

}  // namespace
}  // namespace gpukill::detect
