#include "net/domain_policy.h"

#include <gtest/gtest.h>

namespace paddock::net {
namespace {

NetworkPolicy filtered(std::vector<std::string> allow, std::vector<std::string> deny = {}) {
  NetworkPolicy p;
  p.mode = NetMode::Filtered;
  p.allow_domains = std::move(allow);
  p.deny_domains = std::move(deny);
  return p;
}

DomainPolicy make(std::vector<std::string> allow, std::vector<std::string> deny = {}) {
  auto p = DomainPolicy::create(filtered(std::move(allow), std::move(deny)));
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().describe());
  return std::move(p).value();
}

TEST(HostRule, ParsesEveryForm) {
  auto name = HostRule::parse("Api.Example.COM.");
  ASSERT_TRUE(name.ok());
  EXPECT_EQ(name->kind, HostRule::Kind::Name);
  EXPECT_EQ(name->name, "api.example.com");
  EXPECT_EQ(name->port, 0);

  auto port = HostRule::parse("github.com:22");
  ASSERT_TRUE(port.ok());
  EXPECT_EQ(port->name, "github.com");
  EXPECT_EQ(port->port, 22);

  auto wild = HostRule::parse("*.npmjs.org");
  ASSERT_TRUE(wild.ok());
  EXPECT_EQ(wild->kind, HostRule::Kind::Suffix);
  EXPECT_EQ(wild->name, "npmjs.org");

  auto any = HostRule::parse("*");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->kind, HostRule::Kind::Any);

  auto cidr = HostRule::parse("10.0.0.0/8:5432");
  ASSERT_TRUE(cidr.ok());
  EXPECT_EQ(cidr->kind, HostRule::Kind::Address);
  EXPECT_EQ(cidr->port, 5432);

  auto v6 = HostRule::parse("[::1]:8080");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->kind, HostRule::Kind::Address);
  EXPECT_EQ(v6->port, 8080);
  EXPECT_TRUE(v6->address_matches(*IpAddr::parse("::1")));

  auto bare_v6 = HostRule::parse("fc00::/7");
  ASSERT_TRUE(bare_v6.ok());
  EXPECT_EQ(bare_v6->port, 0);
}

TEST(HostRule, RejectsBadRules) {
  for (const char* bad : {"", "a..b", "exa mple.com", "foo.*.com", "*foo.com", "host:0",
                          "host:70000", "host:abc", "10.0.0.0/33", "127.1", "[::1", "-:-:-"}) {
    auto r = HostRule::parse(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.error().where.find(bad), std::string::npos) << r.error().describe();
    }
  }
}

TEST(HostRule, AUrlIsTheHostItNames) {
  std::string note = "stale";
  auto r = rule_from_url("https://registry.npmjs.org/", &note);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(*r, "registry.npmjs.org");
  EXPECT_EQ(note, "");
  EXPECT_EQ(*rule_from_url("HTTP://Example.COM"), "example.com");
  EXPECT_EQ(*rule_from_url("http://example.com:8080/v1/models?x=1", &note), "example.com:8080");
  EXPECT_EQ(note, "the path /v1/models?x=1");
  EXPECT_EQ(*rule_from_url("http://[::1]:11434/api"), "[::1]:11434");
  EXPECT_EQ(*rule_from_url("git+ssh://github.com/a/b"), "github.com");
  // What the filter could not enforce, or should not be given, is refused.
  for (const char* bad : {"https://user:pw@example.com/", "https://", "https://ex ample.com/", "https://host:99999/"}) {
    EXPECT_FALSE(rule_from_url(bad).ok()) << bad;
  }
  EXPECT_FALSE(looks_like_url("example.com:443"));
  EXPECT_FALSE(looks_like_url("://x"));
  EXPECT_FALSE(looks_like_url("1http://x"));
  // A rule written as a URL (a profile's [network] list) names the host it meant.
  auto rule = HostRule::parse("https://registry.npmjs.org/");
  ASSERT_FALSE(rule.ok());
  EXPECT_EQ(rule.error().message, "a URL, not a host");
  EXPECT_EQ(rule.error().hint, "write the host: registry.npmjs.org");
}

TEST(DomainPolicy, BadEntryIsNamedWhereItCameFrom) {
  NetworkPolicy p = filtered({"ok.example.com", "x:99999"});
  p.allow_where = {"", "/home/u/.config/paddock/profiles/a.toml:4:21"};
  auto r = DomainPolicy::create(p);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where, "/home/u/.config/paddock/profiles/a.toml:4:21") << r.error().describe();
  // Unknown origin (a flag, a library caller): the message stands alone.
  auto q = DomainPolicy::create(filtered({"x:99999"}));
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.error().where, "/home/u/.config/paddock/profiles/a.toml:4:21");
}

TEST(DomainPolicy, ExactNameMatchesOnlyThatName) {
  auto p = make({"api.example.com"});
  EXPECT_TRUE(p.decide_host("api.example.com", 443).allowed);
  EXPECT_TRUE(p.decide_host("API.example.com.", 443).allowed);
  EXPECT_FALSE(p.decide_host("example.com", 443).allowed);
  EXPECT_FALSE(p.decide_host("x.api.example.com", 443).allowed);
  EXPECT_FALSE(p.decide_host("api.example.com.evil.test", 443).allowed);
  auto v = p.decide_host("other.test", 443);
  EXPECT_EQ(v.why, Verdict::Why::NoRule);
  EXPECT_EQ(v.suggestion, "--allow-domain other.test");
}

TEST(DomainPolicy, WildcardMatchesSubdomainsNotApex) {
  auto p = make({"*.npmjs.org"});
  EXPECT_TRUE(p.decide_host("registry.npmjs.org", 443).allowed);
  EXPECT_TRUE(p.decide_host("a.b.npmjs.org", 443).allowed);
  EXPECT_FALSE(p.decide_host("npmjs.org", 443).allowed);
  EXPECT_FALSE(p.decide_host("evilnpmjs.org", 443).allowed);
}

TEST(DomainPolicy, PortRulesRestrictThePort) {
  auto p = make({"github.com:22"});
  EXPECT_TRUE(p.decide_host("github.com", 22).allowed);
  EXPECT_FALSE(p.decide_host("github.com", 443).allowed);
  EXPECT_TRUE(p.decide_host("github.com", 0).allowed) << "DNS must answer: some port is allowed";
  EXPECT_EQ(p.decide_host("github.com", 2222).suggestion, "--allow-domain github.com:2222");
  EXPECT_EQ(p.named_ports(), std::vector<std::uint16_t>{22});
}

TEST(DomainPolicy, DenyBeatsAllow) {
  auto p = make({"*.example.com"}, {"secret.example.com"});
  EXPECT_TRUE(p.decide_host("www.example.com", 443).allowed);
  auto v = p.decide_host("secret.example.com", 443);
  EXPECT_FALSE(v.allowed);
  EXPECT_EQ(v.why, Verdict::Why::DenyRule);
  EXPECT_EQ(v.rule, "secret.example.com");
  EXPECT_FALSE(p.decide_host("secret.example.com", 0).allowed);
}

TEST(DomainPolicy, DenyWithPortLeavesOtherPortsAndDns) {
  auto p = make({"*"}, {"example.com:22"});
  EXPECT_FALSE(p.decide_host("example.com", 22).allowed);
  EXPECT_TRUE(p.decide_host("example.com", 443).allowed);
  EXPECT_TRUE(p.decide_host("example.com", 0).allowed);
}

TEST(DomainPolicy, AllowAllMinusDenylist) {
  auto p = make({"*"}, {"evil.example", "*.evil.example"});
  EXPECT_TRUE(p.decide_host("anything.test", 443).allowed);
  EXPECT_FALSE(p.decide_host("evil.example", 443).allowed);
  EXPECT_FALSE(p.decide_host("x.evil.example", 80).allowed);
  // "*" covers public addresses but never special ranges.
  EXPECT_TRUE(p.decide_host("203.0.113.9", 443).allowed);
  EXPECT_FALSE(p.decide_host("127.0.0.1", 443).allowed);
  EXPECT_FALSE(p.decide_host("169.254.169.254", 80).allowed);
}

TEST(DomainPolicy, EmptyFilteredPolicyDeniesEverything) {
  auto p = make({});
  EXPECT_FALSE(p.decide_host("example.com", 443).allowed);
  EXPECT_FALSE(p.decide_host("203.0.113.9", 443).allowed);
}

TEST(DomainPolicy, ModesOffAndHost) {
  NetworkPolicy off;
  auto p = DomainPolicy::create(off);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->decide_host("example.com", 443).why, Verdict::Why::NetworkOff);
  NetworkPolicy host;
  host.mode = NetMode::Host;
  auto h = DomainPolicy::create(host);
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(h->decide_host("example.com", 443).allowed);
}

TEST(DomainPolicy, ResolvedSpecialAddressesNeedAnAddressRule) {
  auto p = make({"allowed.test"});
  for (const char* a : {"127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254",
                        "100.64.0.1", "0.0.0.0", "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1",
                        "::ffff:169.254.169.254", "64:ff9b::a00:1"}) {
    auto v = p.decide_address(*IpAddr::parse(a), "allowed.test", 443);
    EXPECT_FALSE(v.allowed) << a;
    EXPECT_EQ(v.why, Verdict::Why::SpecialAddress) << a;
  }
  auto pub = p.decide_address(*IpAddr::parse("203.0.113.7"), "allowed.test", 443);
  EXPECT_TRUE(pub.allowed);
  auto pub6 = p.decide_address(*IpAddr::parse("2001:db8::1"), "allowed.test", 443);
  EXPECT_TRUE(pub6.allowed);

  auto v = p.decide_address(*IpAddr::parse("127.0.0.1"), "allowed.test", 8080);
  EXPECT_EQ(v.suggestion, "--allow-domain 127.0.0.1:8080");
}

TEST(DomainPolicy, AddressRuleOpensExactlyThatRange) {
  auto p = make({"allowed.test", "127.0.0.1:8080", "10.0.0.0/8"});
  EXPECT_TRUE(p.decide_address(*IpAddr::parse("127.0.0.1"), "allowed.test", 8080).allowed);
  EXPECT_FALSE(p.decide_address(*IpAddr::parse("127.0.0.1"), "allowed.test", 8081).allowed);
  EXPECT_FALSE(p.decide_address(*IpAddr::parse("127.0.0.2"), "allowed.test", 8080).allowed);
  EXPECT_TRUE(p.decide_address(*IpAddr::parse("10.9.9.9"), "allowed.test", 22).allowed);
  EXPECT_FALSE(p.decide_address(*IpAddr::parse("169.254.169.254"), "allowed.test", 80).allowed);
  // IP literals asked for directly follow the same rules.
  EXPECT_TRUE(p.decide_host("127.0.0.1", 8080).allowed);
  EXPECT_FALSE(p.decide_host("127.0.0.1", 22).allowed);
  EXPECT_FALSE(p.decide_host("203.0.113.7", 443).allowed) << "a public literal needs a rule too";
}

TEST(DomainPolicy, DenyAddressRuleWins) {
  auto p = make({"*", "10.0.0.0/8"}, {"10.0.0.5"});
  EXPECT_TRUE(p.decide_address(*IpAddr::parse("10.0.0.4"), "x.test", 443).allowed);
  EXPECT_FALSE(p.decide_address(*IpAddr::parse("10.0.0.5"), "x.test", 443).allowed);
}

TEST(DomainPolicy, NumericOddities) {
  auto p = make({"*"});
  EXPECT_EQ(p.decide_host("2130706433", 80).why, Verdict::Why::InvalidHost);
  EXPECT_EQ(p.decide_host("127.1", 80).why, Verdict::Why::InvalidHost);
  EXPECT_EQ(p.decide_host("a b", 80).why, Verdict::Why::InvalidHost);
}

TEST(ExplainHost, TextAndJson) {
  auto d = explain_host(filtered({"*.example.com"}, {"bad.example.com"}), "Bad.Example.com", 443);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->verdict.allowed);
  auto j = to_json(*d);
  EXPECT_EQ(j["version"], "paddock.why-host/1");
  EXPECT_EQ(j["host"], "bad.example.com");
  EXPECT_EQ(j["port"], 443);
  EXPECT_EQ(j["allowed"], false);
  EXPECT_EQ(j["decided_by"], "deny-rule");
  EXPECT_EQ(j["rule"], "bad.example.com");
  EXPECT_EQ(to_text(*d),
            "bad.example.com:443: denied\n"
            "  network: filtered\n"
            "  rule: bad.example.com\n"
            "  why: bad.example.com:443 matches the deny rule bad.example.com\n");

  auto apex = explain_host(filtered({"*.example.com"}), "example.com", 0);
  ASSERT_TRUE(apex.ok());
  EXPECT_FALSE(apex->verdict.allowed);
  EXPECT_EQ(apex->verdict.suggestion, "--allow-domain example.com");
  ASSERT_FALSE(apex->notes.empty());
  EXPECT_NE(apex->notes[0].find("not example.com itself"), std::string::npos);

  auto bad = explain_host(filtered({"a..b"}), "x", 0);
  EXPECT_FALSE(bad.ok());
}

TEST(Address, SpecialRanges) {
  EXPECT_FALSE(special_range(*IpAddr::parse("8.8.8.8")));
  EXPECT_FALSE(special_range(*IpAddr::parse("172.32.0.1")));
  EXPECT_TRUE(special_range(*IpAddr::parse("172.31.255.255")));
  EXPECT_NE(special_range(*IpAddr::parse("169.254.169.254"))->find("metadata"), std::string::npos);
  EXPECT_EQ(IpAddr::parse("::0001")->to_string(), "::1");
  EXPECT_FALSE(IpAddr::parse("1.2.3"));
  EXPECT_TRUE(Cidr::parse("fc00::/7")->contains(*IpAddr::parse("fdff::1")));
  EXPECT_FALSE(Cidr::parse("fc00::/7")->contains(*IpAddr::parse("fe00::1")));
}

}  // namespace
}  // namespace paddock::net

namespace paddock::net {
namespace {
// A direct connection to an address meets a transparent listener only on 80, 443 and named ports.
TEST(ExplainHostNotes, AddressRuleWithoutThePortSaysDirectClientsNeedIt) {
  NetworkPolicy np;
  np.mode = NetMode::Filtered;
  np.allow_domains = {"127.0.0.1", "::1"};
  auto any = explain_host(np, "127.0.0.1", 0);
  ASSERT_TRUE(any.ok());
  bool said = false;
  for (const auto& n : any->notes) said = said || n.find("--allow-domain 127.0.0.1:PORT") != std::string::npos;
  EXPECT_TRUE(said);
  auto v6 = explain_host(np, "::1", 11434);
  ASSERT_TRUE(v6.ok());
  said = false;
  for (const auto& n : v6->notes) said = said || n.find("--allow-domain [::1]:11434") != std::string::npos;
  EXPECT_TRUE(said);
  np.allow_domains = {"127.0.0.1:11434"};
  auto exact = explain_host(np, "127.0.0.1", 11434);
  ASSERT_TRUE(exact.ok());
  EXPECT_TRUE(exact->verdict.allowed);
  for (const auto& n : exact->notes) EXPECT_EQ(n.find("directly"), std::string::npos) << n;
}
}  // namespace
}  // namespace paddock::net

namespace paddock::net {
namespace {
// Issue 30, item 7: "localhost" is the loopback addresses, for the rule's port.
TEST(LocalhostRule, MeansBothLoopbackAddressesOnItsPort) {
  auto r = HostRule::parse("LocalHost:8765");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->kind, HostRule::Kind::Loopback);
  EXPECT_EQ(r->text, "LocalHost:8765");  // shown as written
  EXPECT_EQ(r->port, 8765);
  EXPECT_TRUE(r->loopback_only());
  auto p = make({"localhost:8765"});
  for (const char* h : {"localhost", "127.0.0.1", "::1", "[::1]"}) {
    Verdict v = p.decide_host(h, 8765);
    EXPECT_TRUE(v.allowed) << h << ": " << v.reason;
    EXPECT_EQ(v.rule, "localhost:8765") << h;
    EXPECT_FALSE(p.decide_host(h, 8766).allowed) << h;
  }
  // Only those two: not the rest of 127.0.0.0/8, not the mapped form, not other names.
  EXPECT_FALSE(p.decide_host("127.0.0.2", 8765).allowed);
  EXPECT_FALSE(p.decide_host("::ffff:127.0.0.1", 8765).allowed);
  EXPECT_FALSE(p.decide_host("localhost.example", 8765).allowed);
  EXPECT_FALSE(p.decide_host("a.localhost", 8765).allowed);
  // What "localhost" resolves to upstream is checked address by address, as for any name.
  EXPECT_TRUE(p.decide_address(*IpAddr::parse("::1"), "localhost", 8765).allowed);
  EXPECT_FALSE(p.decide_address(*IpAddr::parse("10.0.0.1"), "localhost", 8765).allowed);
  EXPECT_TRUE(p.localhost_allows(*IpAddr::parse("127.0.0.1"), 8765));
  EXPECT_FALSE(p.localhost_allows(*IpAddr::parse("127.0.0.1"), 80));
  EXPECT_FALSE(make({"127.0.0.1:8765"}).localhost_allows(*IpAddr::parse("127.0.0.1"), 8765));
  EXPECT_EQ(p.named_ports(), (std::vector<std::uint16_t>{8765}));
  // Deny beats allow, for the name and for each address.
  auto d = make({"localhost:8765"}, {"127.0.0.1"});
  EXPECT_FALSE(d.decide_host("127.0.0.1", 8765).allowed);
  EXPECT_TRUE(d.decide_host("::1", 8765).allowed);
  auto dl = make({"*"}, {"localhost"});
  EXPECT_FALSE(dl.decide_host("localhost", 443).allowed);
}

TEST(LocalhostRule, PortlessLoopbackRulesAreExplained) {
  for (const char* t : {"localhost", "127.0.0.1", "::1", "127.0.0.0/8"}) {
    auto r = HostRule::parse(t);
    ASSERT_TRUE(r.ok()) << t;
    EXPECT_NE(portless_loopback_note(*r).find(":PORT"), std::string::npos) << t;
  }
  for (const char* t : {"localhost:1", "127.0.0.1:8080", "10.0.0.0/8", "example.com", "0.0.0.0/0", "*"}) {
    auto r = HostRule::parse(t);
    ASSERT_TRUE(r.ok()) << t;
    EXPECT_EQ(portless_loopback_note(*r), "") << t;
  }
}

// `paddock why` suggests only rules that reach loopback for every client: with the port.
TEST(LocalhostRule, SuggestionsForLoopbackNameThePort) {
  EXPECT_EQ(allow_flag_for("127.0.0.1", 0), "--allow-domain 127.0.0.1:PORT");
  EXPECT_EQ(allow_flag_for("::1", 0), "--allow-domain [::1]:PORT");
  EXPECT_EQ(allow_flag_for("localhost", 443), "--allow-domain localhost:443");
  EXPECT_EQ(allow_flag_for("example.com", 443), "--allow-domain example.com");
  auto none = explain_host(filtered({"example.com"}), "127.0.0.1", 0);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->verdict.suggestion, "--allow-domain 127.0.0.1:PORT");
  auto named = explain_host(filtered({"example.com"}), "localhost", 8765);
  ASSERT_TRUE(named.ok());
  EXPECT_FALSE(named->verdict.allowed);
  EXPECT_EQ(named->verdict.suggestion, "--allow-domain localhost:8765");
  auto ok = explain_host(filtered({"localhost:8765"}), "localhost", 8765);
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->verdict.allowed);
  for (const auto& n : ok->notes) EXPECT_EQ(n.find("still refused"), std::string::npos) << n;
}
}  // namespace
}  // namespace paddock::net
