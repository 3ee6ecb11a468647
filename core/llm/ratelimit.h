#pragma once
// Client-side pacing for one endpoint (core/llm/README.md, "Transport, retries and pacing"): token
// buckets for requests/min and tokens/min, and an adaptive limiter that halves the effective
// concurrency (and spaces starts out) after repeated 429s and recovers gradually on success. Time
// is passed in, never read here, so the rules are testable without sleeping; the transport's worker
// thread owns these objects (no locking inside).
//
//   TokenBucket rpm = TokenBucket::perMinute(600);      // 10/s, bursts of 10
//   if (rpm.tryTake(1, now)) start(); else wakeAt(now + rpm.waitFor(1, now));

#include <chrono>
#include <cstdint>

namespace ragscope::core::llm {

using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;

class TokenBucket {
 public:
  TokenBucket() = default;  // unlimited
  // ratePerSecond <= 0: unlimited. capacity: the burst allowed after an idle period.
  TokenBucket(double ratePerSecond, double capacity);
  // perMinute <= 0: unlimited; otherwise rate perMinute/60 per second and a burst of one
  // second's worth (at least `minBurst`), so any window of T seconds admits at most
  // burst + T * rate units.
  static TokenBucket perMinute(double perMinute, double minBurst = 1.0);

  bool unlimited() const { return m_rate <= 0; }
  double rate() const { return m_rate; }
  double capacity() const { return m_capacity; }

  // Takes `cost` units if available. A cost larger than the capacity is admitted once the bucket
  // is full and drives the level negative (debt), so oversized requests are slowed, not starved.
  bool tryTake(double cost, Clock::time_point now);
  // How long until tryTake(cost) would succeed (zero when it would now).
  Seconds waitFor(double cost, Clock::time_point now);
  // Returns units taken by an estimate that turned out too high (tokens/min after the real usage
  // is known); never above capacity. Negative `units` take more (estimate too low).
  void adjust(double units, Clock::time_point now);
  double level(Clock::time_point now);

 private:
  void refill(Clock::time_point now);

  double m_rate = 0.0;
  double m_capacity = 0.0;
  double m_level = 0.0;
  Clock::time_point m_last{};
  bool m_started = false;
};

// AIMD on the number of transfers in flight: a 429 halves the allowed concurrency (at most once
// per `cooldown`, so a burst of 32 simultaneous 429s counts as one signal) and adds a spacing
// between starts; each run of `limit` successes adds one slot back and halves the spacing, until
// the configured concurrency is reached again.
class AdaptiveLimiter {
 public:
  explicit AdaptiveLimiter(int maxConcurrency = 8, Seconds cooldown = Seconds(1.0));

  int limit() const { return m_limit; }
  int maxConcurrency() const { return m_max; }
  Seconds spacing() const { return m_spacing; }
  int throttleEvents() const { return m_events; }

  void onRateLimited(Clock::time_point now);
  void onSuccess();

 private:
  int m_max;
  int m_limit;
  Seconds m_cooldown;
  Seconds m_spacing{0.0};
  Clock::time_point m_lastCut{};
  bool m_everCut = false;
  int m_successes = 0;
  int m_events = 0;
};

}  // namespace ragscope::core::llm
