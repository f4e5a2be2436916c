// Node sets as pdsh and ClusterShell write them, and their folding for --gather.
#include <gtest/gtest.h>

#include "fleet/node_set.hpp"

namespace gpukill::fleet {
namespace {

std::vector<std::string> expand(const std::string& text) {
    auto names = expand_node_set(text);
    EXPECT_TRUE(names.has_value()) << text << ": " << (names ? "" : names.error().what);
    return names ? *names : std::vector<std::string>{};
}

std::string error_of(const std::string& text) {
    auto names = expand_node_set(text);
    EXPECT_FALSE(names.has_value()) << text;
    return names ? "" : names.error().what;
}

using Names = std::vector<std::string>;

TEST(NodeSet, RangesKeepTheirZeroPadding) {
    EXPECT_EQ(expand("node[01-03]"), (Names{"node01", "node02", "node03"}));
    EXPECT_EQ(expand("n[08-10]"), (Names{"n08", "n09", "n10"}));
    EXPECT_EQ(expand("node[001-002]"), (Names{"node001", "node002"}));
    EXPECT_EQ(expand("n[9-11]"), (Names{"n9", "n10", "n11"}));
}

TEST(NodeSet, ListsInsideBracketsAndCommasBetweenPatterns) {
    EXPECT_EQ(expand("gpu[1-4,7]"), (Names{"gpu1", "gpu2", "gpu3", "gpu4", "gpu7"}));
    EXPECT_EQ(expand("login,node[1-2],login"), (Names{"login", "node1", "node2"}));
    EXPECT_EQ(expand("a, b"), (Names{"a", "b"}));
}

TEST(NodeSet, SeveralBracketGroupsGiveEveryCombination) {
    EXPECT_EQ(expand("rack[1-2]-n[1-2]"), (Names{"rack1-n1", "rack1-n2", "rack2-n1", "rack2-n2"}));
    EXPECT_EQ(expand("n[1-2].ib"), (Names{"n1.ib", "n2.ib"}));
}

TEST(NodeSet, StepsAndExclusions) {
    EXPECT_EQ(expand("n[1-9/4]"), (Names{"n1", "n5", "n9"}));
    EXPECT_EQ(expand("node[1-6]!node[2-3]"), (Names{"node1", "node4", "node5", "node6"}));
    EXPECT_EQ(expand("node[1-4]&node[3-9]"), (Names{"node3", "node4"}));
    EXPECT_EQ(exclude_hosts({"a", "b", "c"}, {"b"}), (Names{"a", "c"}));
}

TEST(NodeSet, BadSyntaxIsOnePointedLine) {
    EXPECT_EQ(error_of("node[1-"), "bad node set 'node[1-': expected a number at column 8");
    EXPECT_EQ(error_of("node[1-3"), "bad node set 'node[1-3': unclosed '[' at column 5");
    EXPECT_EQ(error_of("node[5-3]"),
              "bad node set 'node[5-3]': range 5-3 runs backwards at column 6");
    EXPECT_EQ(error_of("node]"), "bad node set 'node]': ']' without '[' at column 5");
    EXPECT_EQ(error_of("a,,b"), "bad node set 'a,,b': empty name at column 3");
    EXPECT_EQ(error_of("a b"), "bad node set 'a b': space inside a name at column 2");
    EXPECT_EQ(error_of("n[a]"), "bad node set 'n[a]': expected a number at column 3");
    EXPECT_EQ(error_of("n;rm"), "bad node set 'n;rm': unexpected character ';' at column 2");
    EXPECT_NE(error_of("n[1-10000000]").find("more than 100000 names"), std::string::npos);
    EXPECT_FALSE(expand_node_set("").has_value());
}

TEST(NodeSet, FoldingNamesTheHostsAsOperatorsWriteThem) {
    EXPECT_EQ(fold_node_set({"node01", "node02", "node03", "node07", "login"}),
              "login,node[01-03,07]");
    EXPECT_EQ(fold_node_set({"node09", "node10", "node08"}), "node[08-10]");
    EXPECT_EQ(fold_node_set({"n9", "n10", "n11"}), "n[9-11]");
    EXPECT_EQ(fold_node_set({"n1", "n01"}), "n01,n1");
    EXPECT_EQ(fold_node_set({"gpu3"}), "gpu3");
    EXPECT_EQ(fold_node_set({"r1-n1.ib", "r1-n2.ib"}), "r1-n[1-2].ib");
    EXPECT_EQ(fold_node_set({}), "");
}

TEST(NodeSet, FoldThenExpandGivesTheSameHosts) {
    const Names hosts = expand("node[001-100]!node[050-060]");
    EXPECT_EQ(hosts.size(), 89u);
    EXPECT_EQ(fold_node_set(hosts), "node[001-049,061-100]");
    EXPECT_EQ(expand(fold_node_set(hosts)), hosts);
}

}  // namespace
}  // namespace gpukill::fleet
