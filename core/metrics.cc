#include "core/metrics.h"

#include <cstdio>

namespace svc::core {

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)),
      buckets_(std::make_unique<std::atomic<uint64_t>[]>(bounds_.size() + 1)) {}

void Histogram::Observe(double v) {
  size_t i = 0;
  while (i < bounds_.size() && v > bounds_[i]) ++i;
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lock(sum_mu_);
  sum_ += v;
}

Histogram::Snapshot Histogram::Take() const {
  Snapshot s;
  s.bounds = bounds_;
  uint64_t acc = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    acc += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative.push_back(acc);
  }
  s.count = acc;
  std::lock_guard lock(sum_mu_);
  s.sum = sum_;
  return s;
}

Counter& MetricsRegistry::GetCounter(const std::string& name, const std::string& help,
                                     const std::string& labels) {
  std::lock_guard lock(mu_);
  auto& f = families_[name];
  f.help = help;
  f.type = "counter";
  auto& slot = f.counters[labels];
  if (!slot) slot = std::make_unique<Counter>();
  return *slot;
}

Gauge& MetricsRegistry::GetGauge(const std::string& name, const std::string& help,
                                 const std::string& labels) {
  std::lock_guard lock(mu_);
  auto& f = families_[name];
  f.help = help;
  f.type = "gauge";
  auto& slot = f.gauges[labels];
  if (!slot) slot = std::make_unique<Gauge>();
  return *slot;
}

Histogram& MetricsRegistry::GetHistogram(const std::string& name, const std::string& help,
                                         std::vector<double> bounds, const std::string& labels) {
  std::lock_guard lock(mu_);
  auto& f = families_[name];
  f.help = help;
  f.type = "histogram";
  auto& slot = f.histograms[labels];
  if (!slot) slot = std::make_unique<Histogram>(std::move(bounds));
  return *slot;
}

namespace {
std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
std::string WithLabels(const std::string& name, const std::string& labels,
                       const std::string& extra = "") {
  std::string all = labels;
  if (!extra.empty()) all += (all.empty() ? "" : ",") + extra;
  return all.empty() ? name : name + "{" + all + "}";
}
}  // namespace

std::string MetricsRegistry::RenderPrometheus() const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& [name, f] : families_) {
    out += "# HELP " + name + " " + f.help + "\n";
    out += "# TYPE " + name + " " + f.type + "\n";
    for (const auto& [labels, c] : f.counters) {
      out += WithLabels(name, labels) + " " + std::to_string(c->Value()) + "\n";
    }
    for (const auto& [labels, g] : f.gauges) {
      out += WithLabels(name, labels) + " " + std::to_string(g->Value()) + "\n";
    }
    for (const auto& [labels, h] : f.histograms) {
      auto s = h->Take();
      for (size_t i = 0; i < s.bounds.size(); ++i) {
        out += WithLabels(name + "_bucket", labels, "le=\"" + Num(s.bounds[i]) + "\"") + " " +
               std::to_string(s.cumulative[i]) + "\n";
      }
      out += WithLabels(name + "_bucket", labels, "le=\"+Inf\"") + " " +
             std::to_string(s.cumulative.back()) + "\n";
      out += WithLabels(name + "_sum", labels) + " " + Num(s.sum) + "\n";
      out += WithLabels(name + "_count", labels) + " " + std::to_string(s.count) + "\n";
    }
  }
  return out;
}

}  // namespace svc::core
