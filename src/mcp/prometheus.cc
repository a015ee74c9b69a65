#include "mcp/prometheus.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace paddock::mcp::prometheus {
namespace {

const char* type_name(Kind k) {
  switch (k) {
    case Kind::Counter: return "counter";
    case Kind::Gauge: return "gauge";
    case Kind::Histogram: return "histogram";
  }
  return "untyped";
}

std::string escape_help(const std::string& help) {
  std::string out;
  for (char c : help) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

// {a="x",b="y"} with an optional extra label (le for histogram buckets); empty for no labels.
std::string label_text(const std::vector<std::string>& names, const LabelValues& values,
                       const std::string& extra_name = {}, const std::string& extra_value = {}) {
  if (names.empty() && extra_name.empty()) return {};
  std::string out = "{";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += ',';
    out += names[i] + "=\"" + escape_label_value(i < values.size() ? values[i] : "") + "\"";
  }
  if (!extra_name.empty()) {
    if (!names.empty()) out += ',';
    out += extra_name + "=\"" + extra_value + "\"";
  }
  return out + "}";
}

}  // namespace

std::string escape_label_value(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

Family::Family(Kind kind, std::string name, std::string help, std::vector<std::string> label_names,
               std::vector<double> buckets, std::mutex& mu)
    : kind_(kind), name_(std::move(name)), help_(std::move(help)),
      label_names_(std::move(label_names)), buckets_(std::move(buckets)), mu_(mu) {
  std::sort(buckets_.begin(), buckets_.end());
}

Family::Series& Family::series(const LabelValues& labels) {
  Series& s = series_[labels];
  if (kind_ == Kind::Histogram && s.bins.empty()) s.bins.assign(buckets_.size() + 1, 0);
  return s;
}

void Family::add(const LabelValues& labels, double by) {
  if (kind_ == Kind::Counter && by < 0) return;  // counters only go up
  std::lock_guard lock(mu_);
  series(labels).value += by;
}

void Family::set(const LabelValues& labels, double value) {
  if (kind_ != Kind::Gauge) return;
  std::lock_guard lock(mu_);
  series(labels).value = value;
}

void Family::observe(const LabelValues& labels, double value) {
  if (kind_ != Kind::Histogram) return;
  std::lock_guard lock(mu_);
  Series& s = series(labels);
  std::size_t i = std::lower_bound(buckets_.begin(), buckets_.end(), value) - buckets_.begin();
  ++s.bins[i];
  s.value += value;
  ++s.count;
}

double Family::value(const LabelValues& labels) const {
  std::lock_guard lock(mu_);
  auto it = series_.find(labels);
  if (it == series_.end()) return 0;
  return kind_ == Kind::Histogram ? static_cast<double>(it->second.count) : it->second.value;
}

void Family::touch(const LabelValues& labels) {
  std::lock_guard lock(mu_);
  series(labels);
}

void Family::clear() {
  std::lock_guard lock(mu_);
  series_.clear();
}

void Family::render(std::string& out) const {
  out += "# HELP " + name_ + " " + escape_help(help_) + "\n";
  out += "# TYPE " + name_ + " " + type_name(kind_) + "\n";
  for (const auto& [labels, s] : series_) {
    if (kind_ != Kind::Histogram) {
      out += name_ + label_text(label_names_, labels) + " " + format_value(s.value) + "\n";
      continue;
    }
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < buckets_.size(); ++i) {
      cumulative += s.bins[i];
      out += name_ + "_bucket" + label_text(label_names_, labels, "le", format_value(buckets_[i])) +
             " " + std::to_string(cumulative) + "\n";
    }
    out += name_ + "_bucket" + label_text(label_names_, labels, "le", "+Inf") + " " +
           std::to_string(s.count) + "\n";
    out += name_ + "_sum" + label_text(label_names_, labels) + " " + format_value(s.value) + "\n";
    out += name_ + "_count" + label_text(label_names_, labels) + " " + std::to_string(s.count) + "\n";
  }
}

Family& Registry::add(Kind kind, const std::string& name, const std::string& help,
                      std::vector<std::string> label_names, std::vector<double> buckets) {
  std::lock_guard lock(mu_);
  families_.push_back(std::make_unique<Family>(kind, name, help, std::move(label_names),
                                               std::move(buckets), mu_));
  return *families_.back();
}

Family& Registry::counter(const std::string& name, const std::string& help,
                          std::vector<std::string> label_names) {
  return add(Kind::Counter, name, help, std::move(label_names), {});
}

Family& Registry::gauge(const std::string& name, const std::string& help,
                        std::vector<std::string> label_names) {
  return add(Kind::Gauge, name, help, std::move(label_names), {});
}

Family& Registry::histogram(const std::string& name, const std::string& help,
                            std::vector<std::string> label_names, std::vector<double> buckets) {
  return add(Kind::Histogram, name, help, std::move(label_names), std::move(buckets));
}

void Registry::on_scrape(std::function<void()> sample) {
  std::lock_guard lock(mu_);
  samplers_.push_back(std::move(sample));
}

std::string Registry::render() {
  std::vector<std::function<void()>> samplers;
  {
    std::lock_guard lock(mu_);
    samplers = samplers_;
  }
  for (auto& s : samplers) s();
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& f : families_) f->render(out);
  return out;
}

}  // namespace paddock::mcp::prometheus
