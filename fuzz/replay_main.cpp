// The fixed-time fuzz run CI can afford with the GCC build: every seed of the target's
// corpus, then deterministic mutations of them (byte flips, insertions of tokens that
// parsers split on, truncations, splices of two seeds) until the time budget is spent.
// Not coverage-guided: that is the libFuzzer build (scripts/fuzz.sh, clang). What it
// proves is the same kind of thing at a smaller scale: no input it tries crashes,
// trips a sanitizer or hangs past the per-input limit.
//
//   fuzz_<target>_replay CORPUS_DIR [SECONDS]     exit 0 when no input failed
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

constexpr unsigned kSecondsPerInput = 10;  // a hang is a failure

std::vector<std::string> read_corpus(const std::filesystem::path& dir) {
    std::vector<std::string> seeds;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (!entry.is_regular_file()) continue;
        std::ifstream in(entry.path(), std::ios::binary);
        seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    return seeds;
}

// The input being run, written out if the process dies on it.
std::string g_current;
extern "C" void save_current(int signal) {
    std::FILE* out = std::fopen("fuzz-crash-input", "wb");
    if (out != nullptr) {
        std::fwrite(g_current.data(), 1, g_current.size(), out);
        std::fclose(out);
    }
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

void run(const std::string& input) {
    g_current = input;
    alarm(kSecondsPerInput);
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
    alarm(0);
}

std::string mutate(const std::vector<std::string>& seeds, std::mt19937_64& random) {
    static const char* const tokens[] = {
        ",", ":", "\n", "[", "]", "{", "}", "\"", "'", "-", "- ", "? ", "&a ", "*a", "!t ", "---\n",
        "\\", "\x00", "\xff", "\xc2\x9b", "(", ")", "*", "{999}", "|", "4294967296", "-1", "1e309",
        "null", "0x",
        // HTTP/1.1 framing (the listener's and the fleet client's reader)
        "\r\n", "\r\n\r\n", "Transfer-Encoding: chunked\r\n", "Content-Length: 5\r\n", "0\r\n\r\n",
        "ffffffffffffffff\r\n", "HTTP/1.1 ", " / HTTP/1.1\r\n"};
    std::string input = seeds[random() % seeds.size()];
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int i = 0; i < edits; ++i) {
        const std::size_t at = input.empty() ? 0 : random() % (input.size() + 1);
        switch (random() % 5) {
            case 0:
                if (!input.empty() && at < input.size())
                    input[at] = static_cast<char>(input[at] ^ (1 << (random() % 8)));
                break;
            case 1: {
                const char* token = tokens[random() % std::size(tokens)];
                input.insert(at, token[0] == '\0' ? std::string(1, '\0') : std::string(token));
                break;
            }
            case 2:
                input.resize(at);
                break;
            case 3:
                if (at < input.size()) input.erase(at, 1 + random() % 8);
                break;
            default: {
                const std::string& other = seeds[random() % seeds.size()];
                input.insert(at, other.substr(0, random() % (other.size() + 1)));
                break;
            }
        }
    }
    return input;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s CORPUS_DIR [SECONDS]\n", argv[0]);
        return 2;
    }
    const double seconds = argc > 2 ? std::stod(argv[2]) : 3.0;
    for (int signal : {SIGSEGV, SIGABRT, SIGALRM, SIGBUS, SIGFPE})
        std::signal(signal, save_current);
    const std::vector<std::string> seeds = read_corpus(argv[1]);
    if (seeds.empty()) {
        std::fprintf(stderr, "%s: no seeds in %s\n", argv[0], argv[1]);
        return 2;
    }
    for (const std::string& seed : seeds) run(seed);
    std::mt19937_64 random(20261201);  // fixed: a failure reproduces
    std::size_t runs = seeds.size();
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
        run(mutate(seeds, random));
        ++runs;
    }
    std::printf("%s: %zu inputs (%zu seeds), no failure\n", argv[0], runs, seeds.size());
    return 0;
}
