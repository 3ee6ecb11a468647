#include "core/llm/ratelimit.h"

#include <algorithm>

namespace ragscope::core::llm {

TokenBucket::TokenBucket(double ratePerSecond, double capacity)
    : m_rate(ratePerSecond), m_capacity(std::max(capacity, 1e-9)), m_level(m_capacity) {}

TokenBucket TokenBucket::perMinute(double perMinute, double minBurst) {
  if (perMinute <= 0) return {};
  double rate = perMinute / 60.0;
  return TokenBucket(rate, std::max(rate, minBurst));
}

void TokenBucket::refill(Clock::time_point now) {
  if (!m_started) {
    m_started = true;
    m_last = now;
    return;
  }
  if (now <= m_last) return;
  m_level = std::min(m_capacity, m_level + Seconds(now - m_last).count() * m_rate);
  m_last = now;
}

double TokenBucket::level(Clock::time_point now) {
  refill(now);
  return m_level;
}

bool TokenBucket::tryTake(double cost, Clock::time_point now) {
  if (unlimited()) return true;
  refill(now);
  // Oversized costs need a full bucket, not an impossible level above capacity.
  const double need = std::min(cost, m_capacity);
  // A small epsilon absorbs floating-point rounding after waiting exactly waitFor().
  if (m_level + 1e-9 < need) return false;
  m_level -= cost;
  return true;
}

Seconds TokenBucket::waitFor(double cost, Clock::time_point now) {
  if (unlimited()) return Seconds(0);
  refill(now);
  const double need = std::min(cost, m_capacity);
  if (m_level + 1e-9 >= need) return Seconds(0);
  return Seconds((need - m_level) / m_rate);
}

void TokenBucket::adjust(double units, Clock::time_point now) {
  if (unlimited()) return;
  refill(now);
  m_level = std::min(m_capacity, m_level + units);
}

AdaptiveLimiter::AdaptiveLimiter(int maxConcurrency, Seconds cooldown)
    : m_max(std::max(1, maxConcurrency)), m_limit(m_max), m_cooldown(cooldown) {}

void AdaptiveLimiter::onRateLimited(Clock::time_point now) {
  m_successes = 0;
  if (m_everCut && now - m_lastCut < m_cooldown) return;
  m_everCut = true;
  m_lastCut = now;
  ++m_events;
  m_limit = std::max(1, m_limit / 2);
  // 50 ms, doubling on each further cut, capped at 2 s between starts.
  m_spacing = std::min(Seconds(2.0), m_spacing.count() <= 0 ? Seconds(0.05) : m_spacing * 2.0);
}

void AdaptiveLimiter::onSuccess() {
  if (m_limit >= m_max && m_spacing.count() <= 0) return;
  if (++m_successes < m_limit) return;
  m_successes = 0;
  m_limit = std::min(m_max, m_limit + 1);
  m_spacing = m_spacing.count() < 0.005 ? Seconds(0) : m_spacing / 2.0;
}

}  // namespace ragscope::core::llm
