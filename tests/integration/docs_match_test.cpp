// The user documents say what the program does (issue 33: the README's example listing
// had lost a column, docs/JSON.md named a kill field that does not exist, and nothing
// said which platforms gpukill runs on). Each check compares a document with the real
// program's output on a simulated host.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support.hpp"

namespace gpukill::testing {
namespace {

std::string source_file(const std::string& relative) {
    std::ifstream in(std::string(GPUKILL_SOURCE_DIR) + "/" + relative);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> doc_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// A table header's titles: words separated by two spaces or more ("SEEN BY" is one).
std::vector<std::string> titles_of(const std::string& header) {
    std::vector<std::string> titles;
    const std::regex gap("  +");
    std::string trimmed = std::regex_replace(header, std::regex("^ +| +$"), "");
    for (std::sregex_token_iterator it(trimmed.begin(), trimmed.end(), gap, -1), end; it != end;
         ++it) {
        if (!it->str().empty()) titles.push_back(*it);
    }
    return titles;
}

// The first line of `text` whose titles start with `first`, `second`.
std::vector<std::string> header_starting(const std::string& text, const std::string& first,
                                         const std::string& second) {
    for (const std::string& line : doc_lines(text)) {
        const std::vector<std::string> titles = titles_of(line);
        if (titles.size() > 2 && titles[0] == first && titles[1] == second) return titles;
    }
    return {};
}

TEST(DocsMatch, TheReadmesExampleListingHasTheColumnsListPrints) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "1G"});
    CommandResult listing = host.gpukill({"list", "--details"});  // a pipe: every column
    ASSERT_EQ(listing.exit_code, 0) << listing.err;
    const std::string readme = source_file("README.md");
    for (const auto& [first, second] : {std::pair<std::string, std::string>{"GPU", "NAME"},
                                        std::pair<std::string, std::string>{"GPU", "PID"}}) {
        const std::vector<std::string> real = header_starting(listing.out, first, second);
        ASSERT_FALSE(real.empty()) << listing.out;
        EXPECT_EQ(header_starting(readme, first, second), real)
            << "README.md's example (" << first << " " << second << " ...) differs from:\n"
            << listing.out;
    }
}

TEST(DocsMatch, JsonDocsNameOnlyFieldsTheKillDocumentHas) {
    SimulatedHost host;
    Workload job = host.run({"--gpu", "0", "--mem", "1G"});
    CommandResult kill =
        host.gpukill({"kill", "--pid", std::to_string(job.pid()), "--pid", "1", "--json"});
    const nlohmann::json doc = nlohmann::json::parse(kill.out);
    std::set<std::string> keys;
    for (const auto& [key, value] : doc.items()) keys.insert(key);
    for (const auto& target : doc["targets"]) {
        for (const auto& [key, value] : target.items()) keys.insert(key);
    }
    const std::string json_md = source_file("docs/JSON.md");
    // Every "kill's `field`" the document mentions is one the kill document carries.
    const std::regex mention("kill's `([a-z_]+)`");
    for (std::sregex_iterator it(json_md.begin(), json_md.end(), mention), end; it != end; ++it) {
        EXPECT_TRUE(keys.contains((*it)[1])) << "docs/JSON.md names kill's `" << (*it)[1] << "`";
    }
    // The section's table names exactly the document's top-level fields.
    const std::size_t section = json_md.find("## `gpukill kill --json`");
    ASSERT_NE(section, std::string::npos);
    const std::string body = json_md.substr(section, json_md.find("\n## ", section + 1) - section);
    std::set<std::string> documented;
    const std::regex row("\n\\| `([a-z_]+)` \\|");
    for (std::sregex_iterator it(body.begin(), body.end(), row), end; it != end; ++it) {
        documented.insert((*it)[1]);
    }
    std::set<std::string> top_level;
    for (const auto& [key, value] : doc.items()) top_level.insert(key);
    EXPECT_EQ(documented, top_level);
    // Refused PIDs are where the docs say: targets with outcome "refused".
    bool refused = false;
    for (const auto& target : doc["targets"]) refused |= target["outcome"] == "refused";
    EXPECT_TRUE(refused) << kill.out;
}

TEST(DocsMatch, TheReadmeSaysWhichPlatformsAndCMakeStopsElsewhere) {
    const std::string readme = source_file("README.md");
    const std::size_t section = readme.find("\n## Platforms\n");
    ASSERT_NE(section, std::string::npos) << "README.md has no Platforms section";
    const std::string body = readme.substr(section, readme.find("\n## ", section + 1) - section);
    for (const char* words : {"Linux", "macOS", "not supported", "What a Mac user gets today"}) {
        EXPECT_NE(body.find(words), std::string::npos) << words;
    }
    const std::string check = std::string(GPUKILL_SOURCE_DIR) + "/cmake/SupportedPlatform.cmake";
    CommandResult mac = run_command({"/usr/bin/cmake", "-DCMAKE_SYSTEM_NAME=Darwin", "-P", check});
    EXPECT_NE(mac.exit_code, 0);
    EXPECT_NE(mac.err.find("Linux only, not on Darwin"), std::string::npos) << mac.err;
    EXPECT_EQ(run_command({"/usr/bin/cmake", "-DCMAKE_SYSTEM_NAME=Linux", "-P", check}).exit_code,
              0);
}

}  // namespace
}  // namespace gpukill::testing
