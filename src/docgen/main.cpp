// gpukill-docgen OUTDIR: writes the man pages and the shell completions from the
// command line's own option table (cli/command_line.hpp), at build time, so the
// installed documentation is exactly what the installed binary parses.
// gpukill-docgen --update-docs DOCS_DIR: rewrites the request field tables of
// DOCS_DIR/API.md from the engine's request tables (a unit test checks they agree).
// OUTDIR gets:
//   OUTDIR/man/man1/gpukill.1, OUTDIR/man/man1/gpukill-CMD.1, OUTDIR/man/man1/gpukill-fleet.1
//   OUTDIR/bash-completion/completions/gpukill
//   OUTDIR/zsh/vendor-completions/_gpukill
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/command_docs.hpp"
#include "cli/command_line.hpp"
#include "cli/completion_scripts.hpp"
#include "cli/man_page.hpp"
#include "cli/request_options.hpp"
#include "source_date.hpp"

namespace {

bool write_file(const std::filesystem::path& path, const std::string& text) {
    std::error_code made;
    std::filesystem::create_directories(path.parent_path(), made);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
        std::fprintf(stderr, "gpukill-docgen: cannot write %s\n", path.c_str());
        return false;
    }
    return true;
}

int update_docs(const std::filesystem::path& docs) {
    const std::filesystem::path api = docs / "API.md";
    std::ifstream in(api, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in) {
        std::fprintf(stderr, "gpukill-docgen: cannot read %s\n", api.c_str());
        return 1;
    }
    auto filled = gpukill::cli::with_request_field_tables(text);
    if (!filled) {
        std::fprintf(stderr, "gpukill-docgen: %s: %s\n", api.c_str(), filled.error().what.c_str());
        return 3;
    }
    return write_file(api, *filled) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace gpukill::cli;
    if (argc == 3 && std::string(argv[1]) == "--update-docs") return update_docs(argv[2]);
    if (argc != 2) {
        std::fprintf(stderr, "usage: gpukill-docgen OUTDIR | --update-docs DOCS_DIR\n");
        return 3;
    }
    const std::filesystem::path root = argv[1];
    const CommandLine command_line;
    const PageStamp stamp{.version = GPUKILL_VERSION, .date = GPUKILL_SOURCE_DATE};
    bool ok = write_file(
        root / "man/man1/gpukill.1",
        top_level_man_page(command_line.common_options(), command_line.compatible_forms(), stamp));
    std::vector<Command> on_a_fleet;
    for (Command command : kAllCommands) {
        const std::vector<OptionDoc> options = command_line.options_for(command);
        ok =
            write_file(root / "man/man1" / (std::string("gpukill-") + command_name(command) + ".1"),
                       command_man_page(command_doc(command), options, stamp)) &&
            ok;
        if (std::any_of(options.begin(), options.end(), [](const OptionDoc& option) {
                return option.group == kFleetOptionsGroup;
            })) {
            on_a_fleet.push_back(command);
        }
    }
    ok = write_file(root / "man/man1/gpukill-fleet.1",
                    fleet_man_page(command_line.options_for(
                                       on_a_fleet.empty() ? Command::list : on_a_fleet.front()),
                                   on_a_fleet, stamp)) &&
         ok;
    const CompletionInput input = completion_input(command_line);
    ok = write_file(root / "bash-completion/completions/gpukill", bash_completion(input)) && ok;
    ok = write_file(root / "zsh/vendor-completions/_gpukill", zsh_completion(input)) && ok;
    return ok ? 0 : 1;
}
