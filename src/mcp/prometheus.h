// Prometheus' text exposition format (version 0.0.4): counters, gauges and histograms with
// labels, kept in one thread-safe registry and rendered for a scrape of /metrics. Knows nothing
// of MCP: fleet_metrics.h names paddock's metrics. Checked by `promtool check metrics` in
// tests/fleet (Debian's prometheus package).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace paddock::mcp::prometheus {

using LabelValues = std::vector<std::string>;  // in the order of the family's label names

enum class Kind { Counter, Gauge, Histogram };

// One metric name with its label names and a value (or histogram) per label combination.
class Family {
 public:
  Family(Kind kind, std::string name, std::string help, std::vector<std::string> label_names,
         std::vector<double> buckets, std::mutex& mu);
  // Counter: adds (by >= 0). Gauge: adds (may be negative).
  void add(const LabelValues& labels, double by = 1);
  // Gauge only.
  void set(const LabelValues& labels, double value);
  // Histogram only: counts the value in every bucket whose upper bound it does not exceed.
  void observe(const LabelValues& labels, double value);
  // The current value (counter, gauge) or count of observations (histogram); 0 when unseen.
  double value(const LabelValues& labels) const;
  // Makes a label combination appear (at 0) before anything happened to it.
  void touch(const LabelValues& labels);
  void clear();  // gauges that are re-sampled at each scrape
  void render(std::string& out) const;

 private:
  struct Series {
    double value = 0;                 // counter, gauge; histogram: sum
    std::vector<std::uint64_t> bins;  // histogram: per bucket (not cumulative), +Inf last
    std::uint64_t count = 0;
  };
  Series& series(const LabelValues& labels);
  Kind kind_;
  std::string name_, help_;
  std::vector<std::string> label_names_;
  std::vector<double> buckets_;
  std::mutex& mu_;
  std::map<LabelValues, Series> series_;
};

class Registry {
 public:
  Family& counter(const std::string& name, const std::string& help,
                  std::vector<std::string> label_names = {});
  Family& gauge(const std::string& name, const std::string& help,
                std::vector<std::string> label_names = {});
  Family& histogram(const std::string& name, const std::string& help,
                    std::vector<std::string> label_names, std::vector<double> buckets);
  // Called at the start of every render(), outside the registry's lock, to sample gauges.
  void on_scrape(std::function<void()> sample);
  // The whole exposition, families in registration order.
  std::string render();

 private:
  Family& add(Kind kind, const std::string& name, const std::string& help,
              std::vector<std::string> label_names, std::vector<double> buckets);
  std::mutex mu_;
  std::vector<std::unique_ptr<Family>> families_;
  std::vector<std::function<void()>> samplers_;
};

// A label value or HELP text escaped as the format requires (backslash, double quote, newline).
std::string escape_label_value(const std::string& value);
// A number as the format writes it: integers without a fraction, +Inf, -Inf, NaN.
std::string format_value(double v);

}  // namespace paddock::mcp::prometheus
