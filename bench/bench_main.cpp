#include "bench_main.hpp"

#include <exception>
#include <filesystem>
#include <iostream>

#include "interrupt.hpp"

namespace gpukill::bench {

std::string beside_this_program(const char* name) {
    return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / name).string();
}

std::optional<int> parse_arguments(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int printed = app.exit(e);  // prints help, or the error with a usage hint
        return printed == 0 ? 0 : 3;
    }
    return std::nullopt;
}

int run_interruptible(const char* name, const std::function<int()>& body) {
    install_interrupt_handlers();
    try {
        return body();
    } catch (const Interrupted&) {
        std::cerr << "\n"
                  << name << ": interrupted by signal " << interrupt_signal()
                  << "; every process it started has been killed and reaped\n";
        return 130;
    } catch (const std::exception& e) {
        std::cerr << "\n" << name << ": " << e.what() << "\n";
        return 1;
    }
}

}  // namespace gpukill::bench
