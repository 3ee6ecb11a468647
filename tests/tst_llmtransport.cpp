// The OpenAI-compatible transport (core/llm/httpprovider) against the local test server, plus
// the pure pieces it is built from: wire format, Retry-After parsing, backoff and rate limiting.
// Every transport test checks the one invariant that matters most to the run engine: each submit
// gets exactly one callback.

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "core/eval/engine/runengine.h"
#include "core/llm/httpprovider.h"
#include "core/llm/llmjson.h"
#include "core/llm/openaiformat.h"
#include "core/llm/ratelimit.h"
#include "core/llm/retrypolicy.h"
#include "core/store/runstore.h"
#include "testserver/testserver.h"

using namespace ragscope::core::llm;
using ragscope::testserver::Behaviour;
using ragscope::testserver::LogEntry;
using ragscope::testserver::Rule;
using ragscope::testserver::rule;
using ragscope::testserver::TestServer;

Q_DECLARE_METATYPE(Behaviour)
Q_DECLARE_METATYPE(CallStatus)

namespace {

// Collects callbacks by call index; counts duplicates instead of hiding them.
struct Collector {
  std::mutex mutex;
  std::condition_variable cv;
  std::map<int, LlmResponse> results;
  std::map<int, int> callbackCount;
  int total = 0;
  std::chrono::steady_clock::time_point lastAt{};

  ResponseCallback callback(int index) {
    return [this, index](LlmResponse r) {
      std::lock_guard lock(mutex);
      ++callbackCount[index];
      ++total;
      results[index] = std::move(r);
      lastAt = std::chrono::steady_clock::now();
      cv.notify_all();
    };
  }
  bool waitFor(int n, std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex);
    return cv.wait_for(lock, limit, [&] { return total >= n; });
  }
  bool eachOnce(int n) {
    std::lock_guard lock(mutex);
    if (total != n || static_cast<int>(callbackCount.size()) != n) return false;
    for (const auto& [i, c] : callbackCount)
      if (c != 1 || i < 0 || i >= n) return false;
    return true;
  }
};

LlmRequest chat(const std::string& user) {
  LlmRequest r;
  r.kind = EndpointKind::Chat;
  r.messages = {{"system", "You answer briefly."}, {"user", user}};
  return r;
}

EndpointConfig endpointFor(const TestServer& server) {
  EndpointConfig ep;
  ep.name = "test";
  ep.baseUrl = server.baseUrl();
  ep.model = "test-model";
  ep.timeoutSeconds = 10;
  ep.concurrency = 8;
  ep.maxRetries = 3;
  return ep;
}

TransportOptions fastRetries() {
  TransportOptions o;
  o.retryBaseSeconds = 0.02;
  o.retryMaxSeconds = 0.2;
  o.jitterSeed = 7;
  return o;
}

// One chat call to `baseUrl` with a 5 s timeout, waited for; the collector holds its one callback.
void callOnce(const std::string& baseUrl, Collector& c) {
  EndpointConfig ep;
  ep.baseUrl = baseUrl;
  ep.model = "m";
  ep.timeoutSeconds = 5;
  auto provider = makeHttpProvider(ep, fastRetries());
  provider->submit(chat("x"), c.callback(0));
  provider->waitIdle();
}

std::string randomMarker() {
  std::random_device rd;
  std::mt19937_64 g(rd());
  char buf[40];
  std::snprintf(buf, sizeof buf, "sk-marker-%016llx", static_cast<unsigned long long>(g()));
  return buf;
}

}  // namespace

class TestLlmTransport : public QObject {
  Q_OBJECT

 private slots:
  // ---- pure pieces --------------------------------------------------------------------------
  void chatBodyIsCanonical();
  void parseChat_data();
  void parseChat();
  void parseEmbeddings();
  void parseRerank();
  void errorExcerptRedacts();
  void retryAfter_data();
  void retryAfter();
  void backoffBounds();
  void tokenBucket();
  void adaptiveLimiter();

  // ---- transport against the test server -----------------------------------------------------
  void chatUsageAndCost();
  void failureModes_data();
  void failureModes();
  void retryAfterHonoured_data();
  void retryAfterHonoured();
  void manyCallsWithFailuresEachCallbackOnce();
  void badBodiesAreRetriedAndRecorded();
  void cancelAllWithin200ms();
  void concurrencyBound();
  void requestsPerMinute();
  void tokensPerMinute();
  void slowsDownAfter429();
  void apiKeyNeverLeaks();
  void embeddingsAndRerank();
  void connectionErrors();
  void untrustedCertificateRejected();
  void testConnectionListsModels();
};

// ---------------------------------------------------------------------------------------------

void TestLlmTransport::chatBodyIsCanonical() {
  EndpointConfig ep;
  ep.model = "m";
  ep.temperature = 0.0;
  ep.maxTokens = 64;
  ep.seed = 42;
  const std::string body = buildChatBody(ep, {{"user", "hi \"there\""}});
  QCOMPARE(
      QString::fromStdString(body),
      QStringLiteral(R"({"max_tokens":64,"messages":[{"content":"hi \"there\"","role":"user"}],)"
                     R"("model":"m","seed":42,"stream":false,"temperature":0.0})"));
  ep.kind = EndpointKind::Rerank;
  LlmRequest r;
  r.query = "q";
  r.documents = {"a", "b"};
  QCOMPARE(QString::fromStdString(buildRequestBody(ep, r)),
           QStringLiteral(R"({"documents":["a","b"],"model":"m","query":"q"})"));
  ep.kind = EndpointKind::Embeddings;
  r.inputs = {"x"};
  QCOMPARE(QString::fromStdString(buildRequestBody(ep, r)),
           QStringLiteral(R"({"input":["x"],"model":"m"})"));
  QCOMPARE(QString::fromStdString(joinUrl("http://h:1/v1//", "/models")),
           QStringLiteral("http://h:1/v1/models"));
  QCOMPARE(estimateTokens(9), std::int64_t(3));
}

void TestLlmTransport::parseChat_data() {
  QTest::addColumn<QString>("body");
  QTest::addColumn<bool>("ok");
  QTest::addColumn<QString>("textOrError");
  QTest::addColumn<int>("prompt");
  QTest::addColumn<int>("completion");
  QTest::newRow("ok") << R"({"choices":[{"message":{"role":"assistant","content":"Paris"}}],)"
                         R"("usage":{"prompt_tokens":12,"completion_tokens":3}})"
                      << true << "Paris" << 12 << 3;
  QTest::newRow("no usage") << R"({"choices":[{"message":{"content":""}}]})" << true << "" << 0
                            << 0;
  QTest::newRow("invalid json") << R"({"choices":[{"message":{"content":"cut)" << false
                                << "invalid JSON" << 0 << 0;
  QTest::newRow("empty") << "" << false << "empty body" << 0 << 0;
  QTest::newRow("no choices") << R"({"object":"x"})" << false << "missing choices[0]" << 0 << 0;
  QTest::newRow("empty choices") << R"({"choices":[]})" << false << "missing choices[0]" << 0 << 0;
  QTest::newRow("null content") << R"({"choices":[{"message":{"content":null}}]})" << false
                                << "missing choices[0].message.content" << 0 << 0;
  QTest::newRow("not object") << "[1,2]" << false << "reply is not a JSON object" << 0 << 0;
  QTest::newRow("too deep") << QString(200, '[') << false << "JSON nested deeper" << 0 << 0;
  // Found by fuzz_openai_reply: a count beyond int64 was converted with undefined behaviour
  // (INT64_MIN tokens on x86). Counts no int64 holds are ignored like negative ones.
  QTest::newRow("huge usage")
      << R"({"choices":[{"message":{"content":"x"}}],)"
         R"("usage":{"prompt_tokens":1e24,"completion_tokens":9223372036854775808}})"
      << true << "x" << 0 << 0;
}

void TestLlmTransport::parseChat() {
  QFETCH(QString, body);
  QFETCH(bool, ok);
  QFETCH(QString, textOrError);
  QFETCH(int, prompt);
  QFETCH(int, completion);
  const ParsedReply r = parseChatReply(body.toStdString());
  QCOMPARE(r.ok, ok);
  if (ok) {
    QCOMPARE(QString::fromStdString(r.text), textOrError);
    QCOMPARE(r.promptTokens, std::int64_t(prompt));
    QCOMPARE(r.completionTokens, std::int64_t(completion));
  } else {
    QVERIFY2(QString::fromStdString(r.error).startsWith(textOrError), r.error.c_str());
  }
}

void TestLlmTransport::parseEmbeddings() {
  // Out-of-order indexes are put back in input order.
  auto r = parseEmbeddingsReply(
      R"({"data":[{"index":1,"embedding":[3,4]},{"index":0,"embedding":[1.5,-2]}],"usage":{"prompt_tokens":7,"total_tokens":7}})",
      2);
  QVERIFY2(r.ok, r.error.c_str());
  QCOMPARE(r.embeddings.size(), std::size_t(2));
  QCOMPARE(r.embeddings[0], (std::vector<float>{1.5f, -2.0f}));
  QCOMPARE(r.embeddings[1], (std::vector<float>{3.0f, 4.0f}));
  QCOMPARE(r.promptTokens, std::int64_t(7));
  QVERIFY(!parseEmbeddingsReply(R"({"data":[{"embedding":[1]}]})", 2).ok);  // count mismatch
  QVERIFY(!parseEmbeddingsReply(
               R"({"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]})", 2)
               .ok);
  QVERIFY(!parseEmbeddingsReply(R"({"data":[{"index":0,"embedding":["x"]}]})", 1).ok);
  QVERIFY(!parseEmbeddingsReply(R"({"data":[{"index":5,"embedding":[1]}]})", 1).ok);
  // Found by fuzz_openai_reply (the input it saved, abridged): total_tokens beyond int64.
  auto huge = parseEmbeddingsReply(
      R"({"data":[{"index":0,"embedding":[1]}],"usage":{"prompt_dokens":13,"total_tokens":1111111111111111111111112}})",
      1);
  QVERIFY2(huge.ok, huge.error.c_str());
  QVERIFY(!huge.hasUsage);
  QCOMPARE(huge.promptTokens, std::int64_t(0));
}

void TestLlmTransport::parseRerank() {
  auto cohere = parseRerankReply(
      R"({"results":[{"index":2,"relevance_score":0.9},{"index":0,"relevance_score":0.1}],"meta":{"billed_units":{"search_units":1}}})",
      3);
  QVERIFY2(cohere.ok, cohere.error.c_str());
  QCOMPARE(cohere.rerank.size(), std::size_t(2));
  QCOMPARE(cohere.rerank[0].first, std::size_t(2));
  QCOMPARE(cohere.rerank[0].second, 0.9);
  QCOMPARE(cohere.promptTokens, std::int64_t(1));
  auto tei = parseRerankReply(R"([{"index":1,"score":0.5},{"index":0,"score":0.25}])", 2);
  QVERIFY2(tei.ok, tei.error.c_str());
  QCOMPARE(tei.rerank[1].first, std::size_t(0));
  QCOMPARE(tei.rerank[1].second, 0.25);
  QVERIFY(!parseRerankReply(R"({"results":[{"index":3,"relevance_score":1}]})", 3).ok);
  QVERIFY(!parseRerankReply(R"({"results":[{"index":0}]})", 3).ok);
  QVERIFY(!parseRerankReply(R"({"foo":1})", 3).ok);
  // Billed units beyond int64 are not a (negative) token count.
  auto huge = parseRerankReply(
      R"({"results":[{"index":0,"relevance_score":1}],"meta":{"billed_units":{"search_units":18446744073709551615}}})",
      1);
  QVERIFY2(huge.ok, huge.error.c_str());
  QVERIFY(!huge.hasUsage);
  QCOMPARE(huge.promptTokens, std::int64_t(0));
}

void TestLlmTransport::errorExcerptRedacts() {
  const std::string key = "sk-secret-123";
  QCOMPARE(QString::fromStdString(
               errorExcerpt(R"({"error":{"message":"bad key sk-secret-123\nhere"}})", {key})),
           QStringLiteral("bad key [redacted] here"));
  QCOMPARE(QString::fromStdString(errorExcerpt("<html>\n  <body>  Bad   Gateway </body></html>")),
           QStringLiteral("<html> <body> Bad Gateway </body></html>"));
  const std::string longBody(500, 'x');
  QCOMPARE(errorExcerpt(longBody, {}, 50), std::string(50, 'x') + "...");
  // A cut never splits a UTF-8 sequence.
  const std::string accents = "ééééé";  // 2 bytes each
  QCOMPARE(errorExcerpt(accents, {}, 3), std::string("é..."));
}

void TestLlmTransport::retryAfter_data() {
  QTest::addColumn<QString>("value");
  QTest::addColumn<double>("expected");  // < 0: nullopt
  QTest::newRow("seconds") << "1" << 1.0;
  QTest::newRow("spaces") << "  120 " << 120.0;
  QTest::newRow("fraction") << "1.5" << 1.5;
  // now = 1445412478 = Wed, 21 Oct 2015 07:27:58 GMT
  QTest::newRow("imf date") << "Wed, 21 Oct 2015 07:28:00 GMT" << 2.0;
  QTest::newRow("rfc850 date") << "Wednesday, 21-Oct-15 07:28:10 GMT" << 12.0;
  QTest::newRow("asctime") << "Wed Oct 21 07:28:00 2015" << 2.0;
  QTest::newRow("past date") << "Wed, 21 Oct 2015 07:00:00 GMT" << 0.0;
  QTest::newRow("garbage") << "soon" << -1.0;
  QTest::newRow("empty") << "" << -1.0;
  QTest::newRow("trailing junk") << "5s" << -1.0;
}

void TestLlmTransport::retryAfter() {
  QFETCH(QString, value);
  QFETCH(double, expected);
  const auto got = parseRetryAfter(value.toStdString(), 1445412478);
  if (expected < 0) {
    QVERIFY(!got);
  } else {
    QVERIFY(got.has_value());
    QCOMPARE(*got, expected);
  }
}

void TestLlmTransport::backoffBounds() {
  using S = std::chrono::duration<double>;
  QCOMPARE(backoffDelay(1, S(0.5), S(30), 0.0).count(), 0.25);
  QCOMPARE(backoffDelay(1, S(0.5), S(30), 0.999999).count() <= 0.5, true);
  QCOMPARE(backoffDelay(3, S(0.5), S(30), 0.0).count(), 1.0);    // d = 2 s
  QCOMPARE(backoffDelay(20, S(0.5), S(30), 0.0).count(), 15.0);  // capped d = 30 s
  QCOMPARE(isRetryable(classifyHttpStatus(429)), true);
  QCOMPARE(isRetryable(classifyHttpStatus(503)), true);
  QCOMPARE(isRetryable(classifyHttpStatus(401)), false);
  QCOMPARE(isRetryable(classifyHttpStatus(400)), false);
  QCOMPARE(isRetryable(FailureKind::Malformed), false);
  QCOMPARE(isRetryable(FailureKind::Unreadable), true);  // a 200 whose body is not JSON
  QCOMPARE(isRetryable(FailureKind::Reset), true);
}

void TestLlmTransport::tokenBucket() {
  const auto t0 = Clock::now();
  auto at = [&](double s) { return t0 + std::chrono::duration_cast<Clock::duration>(Seconds(s)); };
  TokenBucket b = TokenBucket::perMinute(600);  // 10/s, burst 10
  QCOMPARE(b.capacity(), 10.0);
  int taken = 0;
  while (b.tryTake(1, at(0))) ++taken;
  QCOMPARE(taken, 10);
  QVERIFY(std::abs(b.waitFor(1, at(0)).count() - 0.1) < 1e-9);
  QVERIFY(!b.tryTake(1, at(0.05)));
  QVERIFY(b.tryTake(1, at(0.1)));
  // Oversized cost: admitted with a full bucket, then the debt must be repaid.
  TokenBucket tokens = TokenBucket::perMinute(6000);  // 100/s, capacity 100
  QVERIFY(tokens.tryTake(250, at(0)));
  QCOMPARE(tokens.level(at(0)), -150.0);
  QVERIFY(std::abs(tokens.waitFor(10, at(0)).count() - 1.6) < 1e-9);
  tokens.adjust(200, at(0));  // the estimate was 200 too high
  QCOMPARE(tokens.level(at(0)), 50.0);
  QVERIFY(TokenBucket::perMinute(0).unlimited());
}

void TestLlmTransport::adaptiveLimiter() {
  const auto t0 = Clock::now();
  AdaptiveLimiter a(32, Seconds(1.0));
  a.onRateLimited(t0);
  QCOMPARE(a.limit(), 16);
  QVERIFY(a.spacing().count() > 0);
  a.onRateLimited(t0 + std::chrono::milliseconds(10));  // same burst: ignored
  QCOMPARE(a.limit(), 16);
  a.onRateLimited(t0 + std::chrono::milliseconds(1500));
  QCOMPARE(a.limit(), 8);
  QCOMPARE(a.throttleEvents(), 2);
  for (int i = 0; i < 8; ++i) a.onSuccess();
  QCOMPARE(a.limit(), 9);
  for (int i = 0; i < 2000; ++i) a.onSuccess();
  QCOMPARE(a.limit(), 32);
  QCOMPARE(a.spacing().count(), 0.0);
}

// ---------------------------------------------------------------------------------------------

void TestLlmTransport::chatUsageAndCost() {
  TestServer server;
  QVERIFY(server.start());
  EndpointConfig ep = endpointFor(server);
  ep.pricePer1kInput = 2.0;
  ep.pricePer1kOutput = 4.0;
  auto provider = makeHttpProvider(ep, fastRetries());
  Collector c;
  const int n = 20;
  for (int i = 0; i < n; ++i)
    provider->submit(chat("question number " + std::to_string(i) + " about Paris"), c.callback(i));
  provider->waitIdle();
  QVERIFY(c.eachOnce(n));
  for (int i = 0; i < n; ++i) {
    const auto& r = c.results[i];
    QCOMPARE(r.status, CallStatus::Ok);
    const std::string user = "question number " + std::to_string(i) + " about Paris";
    QCOMPARE(QString::fromStdString(r.text),
             QString::fromStdString(TestServer::defaultAnswer(user)));
    // The server counts words: system (3) + user (5) in, "ANSWER" + 5 words out.
    QCOMPARE(r.usage.promptTokens, std::int64_t(3 + 5));
    QCOMPARE(r.usage.completionTokens, std::int64_t(6));
    QCOMPARE(r.usage.costUsd, 8 / 1000.0 * 2.0 + 6 / 1000.0 * 4.0);
    QCOMPARE(r.attempts, 1);
    QCOMPARE(r.httpStatus, 200);
    QVERIFY(r.latencyMs > 0);
    QVERIFY(r.error.empty());
  }
  auto* http = dynamic_cast<HttpProvider*>(provider.get());
  QVERIFY(http);
  const auto s = http->stats();
  QCOMPARE(s.succeeded, std::int64_t(n));
  QCOMPARE(s.promptTokens, std::int64_t(8 * n));
  QVERIFY(std::abs(s.costUsd - n * (8 / 1000.0 * 2.0 + 6 / 1000.0 * 4.0)) < 1e-12);
  QCOMPARE(int(server.requestCount()), n);
  QCOMPARE(QString::fromStdString(provider->requestBody(chat("x"))),
           QString::fromStdString(buildChatBody(ep, chat("x").messages)));
  QVERIFY(provider->cacheIdentity().find(server.baseUrl()) != std::string::npos);
}

void TestLlmTransport::failureModes_data() {
  QTest::addColumn<Behaviour>("behaviour");
  QTest::addColumn<int>("status");  // for Behaviour::Status
  QTest::addColumn<int>("times");   // rule uses (-1: every attempt)
  QTest::addColumn<CallStatus>("expected");
  QTest::addColumn<int>("attempts");
  QTest::addColumn<QString>("errorStart");
  // maxRetries = 2: three attempts at most.
  QTest::newRow("429 once") << Behaviour::RateLimit << 429 << 1 << CallStatus::Ok << 2 << "";
  QTest::newRow("429 always") << Behaviour::RateLimit << 429 << -1 << CallStatus::Error << 3
                              << "http 429 after 3 attempts";
  QTest::newRow("500 once") << Behaviour::Status << 500 << 1 << CallStatus::Ok << 2 << "";
  QTest::newRow("503 twice") << Behaviour::Status << 503 << 2 << CallStatus::Ok << 3 << "";
  QTest::newRow("500 always") << Behaviour::Status << 500 << -1 << CallStatus::Error << 3
                              << "http 500 after 3 attempts: scripted HTTP 500";
  QTest::newRow("slow once") << Behaviour::Slow << 0 << 1 << CallStatus::Ok << 2 << "";
  QTest::newRow("slow always") << Behaviour::Slow << 0 << -1 << CallStatus::Error << 3
                               << "timeout after 0.4 s";
  QTest::newRow("truncated once") << Behaviour::Truncate << 0 << 1 << CallStatus::Ok << 2 << "";
  QTest::newRow("truncated always") << Behaviour::Truncate << 0 << -1 << CallStatus::Error << 3
                                    << "malformed reply: truncated body";
  QTest::newRow("reset once") << Behaviour::Reset << 0 << 1 << CallStatus::Ok << 2 << "";
  QTest::newRow("reset always") << Behaviour::Reset << 0 << -1 << CallStatus::Error << 3
                                << "connection reset";
  // A 200 whose body is cut short or not JSON is retried like a cut connection (issue 12 item 12);
  // well-formed JSON without the content is not (another attempt gets the same).
  QTest::newRow("invalid json once")
      << Behaviour::InvalidJson << 0 << 1 << CallStatus::Ok << 2 << "";
  QTest::newRow("invalid json always") << Behaviour::InvalidJson << 0 << -1 << CallStatus::Error
                                       << 3 << "malformed reply: invalid JSON (after 3 attempts)";
  QTest::newRow("truncated json once")
      << Behaviour::TruncatedJson << 0 << 1 << CallStatus::Ok << 2 << "";
  QTest::newRow("truncated json twice")
      << Behaviour::TruncatedJson << 0 << 2 << CallStatus::Ok << 3 << "";
  QTest::newRow("truncated json always") << Behaviour::TruncatedJson << 0 << -1 << CallStatus::Error
                                         << 3 << "malformed reply: invalid JSON (after 3 attempts)";
  QTest::newRow("missing content") << Behaviour::MissingContent << 0 << -1 << CallStatus::Error << 1
                                   << "malformed reply: missing choices[0].message.content";
  QTest::newRow("401") << Behaviour::Status << 401 << -1 << CallStatus::Error << 1
                       << "auth: HTTP 401: scripted HTTP 401";
  QTest::newRow("403") << Behaviour::Status << 403 << -1 << CallStatus::Error << 1
                       << "auth: HTTP 403";
  QTest::newRow("404") << Behaviour::Status << 404 << -1 << CallStatus::Error << 1
                       << "http 404: scripted HTTP 404";
}

void TestLlmTransport::failureModes() {
  QFETCH(Behaviour, behaviour);
  QFETCH(int, status);
  QFETCH(int, times);
  QFETCH(CallStatus, expected);
  QFETCH(int, attempts);
  QFETCH(QString, errorStart);

  TestServer server;
  Rule r = rule(behaviour, times, "/chat/completions");
  r.status = status;
  r.retryAfter = "0";  // keep the test quick; Retry-After itself is tested below
  r.stallMs = 3000;
  server.addRule(r);
  QVERIFY(server.start());
  EndpointConfig ep = endpointFor(server);
  ep.timeoutSeconds = 0.4;
  ep.maxRetries = 2;
  auto provider = makeHttpProvider(ep, fastRetries());
  Collector c;
  provider->submit(chat("what is the failure mode?"), c.callback(0));
  provider->waitIdle();
  QVERIFY(c.eachOnce(1));
  const LlmResponse& res = c.results[0];
  QCOMPARE(res.status, expected);
  QCOMPARE(res.attempts, attempts);
  if (expected == CallStatus::Ok) {
    QCOMPARE(QString::fromStdString(res.text),
             QString::fromStdString(TestServer::defaultAnswer("what is the failure mode?")));
    QVERIFY(res.error.empty());
  } else {
    QVERIFY2(QString::fromStdString(res.error).startsWith(errorStart), res.error.c_str());
  }
  // The server saw exactly the attempts the transport reports, all with the same body.
  const auto log = server.log();
  QCOMPARE(int(log.size()), attempts);
  for (const auto& e : log) QCOMPARE(e.bodyHash, log.front().bodyHash);
}

void TestLlmTransport::retryAfterHonoured_data() {
  QTest::addColumn<QString>("header");  // "date+N": an HTTP date N seconds ahead, made at run time
  QTest::addColumn<double>("minGapMs");
  QTest::newRow("seconds") << "1" << 1000.0;
  // Three seconds ahead of a whole-second clock: at least two whole seconds remain.
  QTest::newRow("http date") << "date+3" << 1000.0;
}

void TestLlmTransport::retryAfterHonoured() {
  QFETCH(QString, header);
  QFETCH(double, minGapMs);
  if (header.startsWith(QStringLiteral("date+"))) {
    char date[64];
    const std::time_t t = std::time(nullptr) + header.mid(5).toInt();
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    header = QString::fromLatin1(date);
  }
  TestServer server;
  Rule r = rule(Behaviour::RateLimit, 3, "/chat/completions");
  r.retryAfter = header.toStdString();
  server.addRule(r);
  QVERIFY(server.start());
  EndpointConfig ep = endpointFor(server);
  ep.concurrency = 4;
  // The backoff alone would retry within 20 ms: any longer gap is the Retry-After.
  auto provider = makeHttpProvider(ep, fastRetries());
  Collector c;
  for (int i = 0; i < 3; ++i)
    provider->submit(chat("rate limited " + std::to_string(i)), c.callback(i));
  provider->waitIdle();
  QVERIFY(c.eachOnce(3));
  for (int i = 0; i < 3; ++i) {
    QCOMPARE(c.results[i].status, CallStatus::Ok);
    QCOMPARE(c.results[i].attempts, 2);
  }
  const auto log = server.log();
  QCOMPARE(int(log.size()), 6);
  // For each body: gap from the end of its 429 to the arrival of its retry.
  std::map<std::string, const LogEntry*> limited;
  int checked = 0;
  for (const auto& e : log) {
    if (e.status == 429) {
      limited[e.bodyHash] = &e;
    } else {
      QCOMPARE(e.status, 200);
      QVERIFY(limited.count(e.bodyHash));
      const double gap = e.startMs - limited[e.bodyHash]->endMs;
      QVERIFY2(gap >= minGapMs, qPrintable(QStringLiteral("gap %1 ms").arg(gap)));
      QVERIFY2(gap < minGapMs + 3500, qPrintable(QStringLiteral("gap %1 ms").arg(gap)));
      ++checked;
    }
  }
  QCOMPARE(checked, 3);
}

void TestLlmTransport::manyCallsWithFailuresEachCallbackOnce() {
  ragscope::testserver::Options opts;
  opts.failRate = 0.15;
  opts.seed = 99;
  opts.latencyMs = 2;
  TestServer server(opts);
  server.addRule(rule(Behaviour::Reset, 5, "/chat/completions"));
  server.addRule(rule(Behaviour::Truncate, 5, "/chat/completions"));
  Rule limited = rule(Behaviour::RateLimit, 5, "/chat/completions");
  limited.retryAfter = "0";
  server.addRule(limited);
  Rule broken = rule(Behaviour::InvalidJson, -1, "/chat/completions");
  broken.bodyContains = "poison";
  server.addRule(broken);
  QVERIFY(server.start());
  EndpointConfig ep = endpointFor(server);
  ep.concurrency = 16;
  ep.maxRetries = 10;
  auto provider = makeHttpProvider(ep, fastRetries());
  Collector c;
  const int n = 300;
  // Submit from several threads at once: submit() must be thread-safe.
  std::vector<std::thread> submitters;
  for (int t = 0; t < 3; ++t) {
    submitters.emplace_back([&, t] {
      for (int i = t; i < n; i += 3) {
        const bool poison = i % 50 == 7;
        provider->submit(chat((poison ? "poison " : "fine ") + std::to_string(i)), c.callback(i));
      }
    });
  }
  for (auto& th : submitters) th.join();
  provider->waitIdle();
  QVERIFY(c.eachOnce(n));
  int poisoned = 0;
  for (int i = 0; i < n; ++i) {
    const auto& r = c.results[i];
    if (i % 50 == 7) {
      ++poisoned;
      QCOMPARE(r.status, CallStatus::Error);
      QVERIFY2(r.error.rfind("malformed reply: invalid JSON", 0) == 0, r.error.c_str());
    } else {
      QVERIFY2(r.status == CallStatus::Ok, r.error.c_str());
      QCOMPARE(QString::fromStdString(r.text),
               QString::fromStdString(TestServer::defaultAnswer("fine " + std::to_string(i))));
    }
  }
  QCOMPARE(poisoned, 6);
  // Attempts reported by the transport add up to what the server saw.
  int attempts = 0;
  for (const auto& [i, r] : c.results) attempts += r.attempts;
  QCOMPARE(attempts, int(server.requestCount()));
  QVERIFY(attempts > n);  // failures were really injected and retried
}

void TestLlmTransport::badBodiesAreRetriedAndRecorded() {
  // Issue 12 item 12: a server answering 2% of calls with a 200 whose JSON is cut short (its
  // Content-Length matching: only the parser notices) and 2% with a body that is not JSON left
  // calls failed. Retried like transport faults, all ~1000 succeed through the run engine, and the
  // store records every attempt.
  ragscope::testserver::Options opts;
  opts.truncatedJsonRate = 0.02;
  opts.invalidJsonRate = 0.02;
  opts.seed = 1212;
  TestServer server(opts);
  QVERIFY(server.start());
  EndpointConfig ep = endpointFor(server);
  ep.concurrency = 16;
  ep.maxRetries = 5;
  QTemporaryDir dir;
  ragscope::core::store::RunStore store;
  ragscope::core::store::RunRecord record;
  record.kind = "generate";
  record.endpoint = toJson(ep);
  std::string err;
  QVERIFY2(store.create(dir.filePath(QStringLiteral("bad-bodies.db")).toStdString(), record, &err),
           err.c_str());
  const int n = 1000;
  std::vector<ragscope::core::store::NewItem> items;
  for (int i = 0; i < n; ++i)
    items.push_back({"gen:" + std::to_string(i), "generate",
                     toJson(chat("question number " + std::to_string(i))).dump()});
  QVERIFY2(store.addItems(items, &err), err.c_str());
  auto provider = makeHttpProvider(ep, fastRetries());
  ragscope::core::eval::EngineOptions engine;
  engine.concurrency = 16;
  const auto summary = ragscope::core::eval::executeRun(store, *provider, engine, nullptr, {});
  provider.reset();
  const auto counts = store.counts();
  QCOMPARE(counts.errors, std::size_t{0});
  QCOMPARE(counts.done, std::size_t(n));
  QCOMPARE(summary.outcome, ragscope::core::eval::RunOutcome::Done);
  int broken = 0;
  for (const auto& e : server.log())
    if (e.behaviour == Behaviour::TruncatedJson || e.behaviour == Behaviour::InvalidJson) ++broken;
  int recorded = 0;
  for (const auto& item : store.items()) recorded += item.attempts;
  qInfo("%d calls, %d attempts (%d broken 200 replies retried)", n, recorded, broken);
  QVERIFY(broken > 20);                            // the faults were really injected
  QCOMPARE(recorded, int(server.requestCount()));  // each attempt recorded
  QCOMPARE(recorded, n + broken);
}

void TestLlmTransport::cancelAllWithin200ms() {
  ragscope::testserver::Options opts;
  opts.latencyMs = 20000;
  opts.threads = 128;
  TestServer server(opts);
  QVERIFY(server.start());
  EndpointConfig ep = endpointFor(server);
  ep.concurrency = 100;
  ep.timeoutSeconds = 60;
  auto provider = makeHttpProvider(ep, fastRetries());
  Collector c;
  const int n = 130;  // 100 in flight, 30 queued
  for (int i = 0; i < n; ++i) provider->submit(chat("slow " + std::to_string(i)), c.callback(i));
  QTRY_COMPARE_WITH_TIMEOUT(server.inFlight(), 100, 10000);
  QCOMPARE(c.total, 0);
  const auto before = std::chrono::steady_clock::now();
  provider->cancelAll();
  QVERIFY(c.waitFor(n, std::chrono::milliseconds(2000)));
  const double ms = std::chrono::duration<double, std::milli>(c.lastAt - before).count();
  qInfo("cancelAll: %d callbacks %.1f ms after the call", n, ms);
  QVERIFY2(ms < 200.0, qPrintable(QString::number(ms)));
  QVERIFY(c.eachOnce(n));
  for (const auto& [i, r] : c.results) QCOMPARE(r.status, CallStatus::Cancelled);
  provider->waitIdle();
  // A call submitted after cancelAll runs normally.
  server.setLatencyMs(0);
  Collector after;
  provider->submit(chat("after"), after.callback(0));
  provider->waitIdle();
  QVERIFY(after.eachOnce(1));
  QCOMPARE(after.results[0].status, CallStatus::Ok);
  provider.reset();
  server.stop();
}

void TestLlmTransport::concurrencyBound() {
  ragscope::testserver::Options opts;
  opts.latencyMs = 40;
  TestServer server(opts);
  QVERIFY(server.start());
  EndpointConfig ep = endpointFor(server);
  ep.concurrency = 5;
  auto provider = makeHttpProvider(ep, fastRetries());
  Collector c;
  const int n = 60;
  for (int i = 0; i < n; ++i) provider->submit(chat("bounded " + std::to_string(i)), c.callback(i));
  provider->waitIdle();
  QVERIFY(c.eachOnce(n));
  QCOMPARE(server.maxInFlight(), 5);  // reached, never exceeded
  for (const auto& e : server.log()) QVERIFY(e.inFlightAtArrival <= 5);
  QCOMPARE(dynamic_cast<HttpProvider*>(provider.get())->stats().maxInFlight, 5);
}

void TestLlmTransport::requestsPerMinute() {
  TestServer server;
  QVERIFY(server.start());
  EndpointConfig ep = endpointFor(server);
  ep.concurrency = 16;
  ep.requestsPerMinute = 1200;  // 20/s with a burst of 20
  auto provider = makeHttpProvider(ep, fastRetries());
  Collector c;
  const int n = 50;
  QElapsedTimer timer;
  timer.start();
  for (int i = 0; i < n; ++i) provider->submit(chat("paced " + std::to_string(i)), c.callback(i));
  provider->waitIdle();
  const double seconds = timer.elapsed() / 1000.0;
  QVERIFY(c.eachOnce(n));
  // 20 at once, then 30 more at 20/s: at least 1.5 s.
  QVERIFY2(seconds >= 1.45, qPrintable(QString::number(seconds)));
  // Any window of W seconds saw at most burst + W * rate arrivals (+1 for the window edge).
  // The server stamps a request when one of its workers picks it up; under TSan (scripts/sanitize
  // tsan) its handlers run many times slower, the burst queues there, and the next paced requests
  // are stamped right behind it. The limiter is checked strictly in the other builds; under TSan
  // the edge allows for that queue.
#if defined(__SANITIZE_THREAD__)
  constexpr double kEdge = 6;
#else
  constexpr double kEdge = 1;
#endif
  const auto log = server.log();
  for (std::size_t i = 0; i < log.size(); ++i) {
    for (std::size_t j = i; j < log.size(); ++j) {
      const double w = (log[j].startMs - log[i].startMs) / 1000.0;
      const double allowed = 20 + w * 20 + kEdge;
      QVERIFY2(double(j - i + 1) <= allowed,
               qPrintable(QStringLiteral("%1 requests in %2 s").arg(j - i + 1).arg(w)));
    }
  }
}

void TestLlmTransport::tokensPerMinute() {
  // Twenty calls of about 70 tokens each (60-word prompts) against an 18,000 tokens/min budget:
  // 300 tokens/s with a one-second burst. The bucket admits at most burst + rate x T tokens over
  // T seconds (plus one oversized call taken on debt), so the run cannot finish before
  // (total - burst - one call) / rate seconds, measured with the server's own usage figures.
  std::string prompt;
  for (int w = 0; w < 60; ++w) prompt += "word" + std::to_string(w) + " ";
  auto run = [&](double tpm, double* seconds, std::int64_t* tokens, std::int64_t* largest) {
    TestServer server;
    if (!server.start()) return false;
    EndpointConfig ep = endpointFor(server);
    ep.concurrency = 20;
    ep.maxTokens = 16;
    ep.tokensPerMinute = tpm;
    auto provider = makeHttpProvider(ep, fastRetries());
    Collector c;
    QElapsedTimer timer;
    timer.start();
    std::int64_t largestEstimate = 0;
    for (int i = 0; i < 20; ++i) {
      const auto request = chat(std::to_string(i) + " " + prompt);
      largestEstimate = std::max(largestEstimate,
                                 estimateRequestTokens(ep, provider->requestBody(request).size()));
      provider->submit(request, c.callback(i));
    }
    provider->waitIdle();
    *seconds = timer.elapsed() / 1000.0;
    if (!c.eachOnce(20)) return false;
    *tokens = 0;
    std::int64_t largestUsage = 0;
    for (const auto& [i, r] : c.results) {
      if (r.status != CallStatus::Ok) return false;
      const std::int64_t t = r.usage.promptTokens + r.usage.completionTokens;
      *tokens += t;
      largestUsage = std::max(largestUsage, t);
    }
    *largest = std::max(largestEstimate, largestUsage);
    return true;
  };
  double limited = 0, free = 0;
  std::int64_t tokens = 0, largest = 0, tokensFree = 0, largestFree = 0;
  QVERIFY(run(18000, &limited, &tokens, &largest));
  QVERIFY(run(0, &free, &tokensFree, &largestFree));
  QCOMPARE(tokens, tokensFree);  // the same work both times
  QVERIFY2(tokens > 1200, qPrintable(QString::number(tokens)));
  const double rate = 300.0, burst = 300.0;
  const double bound = (double(tokens) - burst - double(largest)) / rate;
  qInfo("tokens %lld: limited %.2f s (lower bound %.2f s), unlimited %.2f s",
        static_cast<long long>(tokens), limited, bound, free);
  QVERIFY2(bound > 2.0, qPrintable(QString::number(bound)));
  QVERIFY2(limited >= bound, qPrintable(QString("%1 < %2").arg(limited).arg(bound)));
  QVERIFY2(free < bound / 2, qPrintable(QString::number(free)));
}

void TestLlmTransport::slowsDownAfter429() {
  ragscope::testserver::Options opts;
  opts.latencyMs = 10;
  TestServer server(opts);
  Rule r = rule(Behaviour::RateLimit, 8, "/chat/completions");
  r.retryAfter = "0";
  server.addRule(r);
  QVERIFY(server.start());
  EndpointConfig ep = endpointFor(server);
  ep.concurrency = 8;
  ep.maxRetries = 6;
  auto provider = makeHttpProvider(ep, fastRetries());
  auto* http = dynamic_cast<HttpProvider*>(provider.get());
  Collector c;
  for (int i = 0; i < 8; ++i) provider->submit(chat("burst " + std::to_string(i)), c.callback(i));
  provider->waitIdle();
  QVERIFY(c.eachOnce(8));
  auto s = http->stats();
  QCOMPARE(s.rateLimited, std::int64_t(8));
  QVERIFY(s.throttleEvents >= 1);
  QVERIFY2(s.effectiveConcurrency < 8, qPrintable(QString::number(s.effectiveConcurrency)));
  // Recovery: enough successes bring the limit back to the configured concurrency.
  Collector more;
  for (int i = 0; i < 120; ++i)
    provider->submit(chat("recover " + std::to_string(i)), more.callback(i));
  provider->waitIdle();
  QVERIFY(more.eachOnce(120));
  s = http->stats();
  QCOMPARE(s.effectiveConcurrency, 8);
  QCOMPARE(s.succeeded, std::int64_t(128));
}

void TestLlmTransport::apiKeyNeverLeaks() {
  const std::string marker = randomMarker();
  qputenv("RAGSCOPE_TEST_API_KEY", QByteArray::fromStdString(marker));
  qputenv("RAGSCOPE_TEST_WRONG_KEY", QByteArray("sk-wrong-key"));
  qunsetenv("RAGSCOPE_TEST_UNSET_KEY");
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const QString transportLog = dir.filePath("transport.jsonl");
  const QString serverLog = dir.filePath("server.jsonl");

  ragscope::testserver::Options opts;
  opts.requiredApiKey = marker;
  opts.logPath = serverLog.toStdString();
  TestServer server(opts);
  Rule echo = rule(Behaviour::Status, -1, "/chat/completions");
  echo.bodyContains = "echo";
  echo.status = 500;
  echo.echoAuthorization = true;
  server.addRule(echo);
  Rule echo400 = echo;
  echo400.bodyContains = "bad request";
  echo400.status = 400;
  server.addRule(echo400);
  QVERIFY(server.start());

  EndpointConfig ep = endpointFor(server);
  ep.apiKeyEnv = "RAGSCOPE_TEST_API_KEY";
  ep.maxRetries = 1;
  TransportOptions topts = fastRetries();
  topts.logPath = transportLog.toStdString();
  std::vector<std::string> errors;
  {
    auto provider = makeHttpProvider(ep, topts);
    Collector c;
    provider->submit(chat("normal question"), c.callback(0));
    provider->submit(chat("please echo my key"), c.callback(1));
    provider->submit(chat("bad request with key"), c.callback(2));
    provider->waitIdle();
    QVERIFY(c.eachOnce(3));
    QCOMPARE(c.results[0].status, CallStatus::Ok);
    QCOMPARE(c.results[1].status, CallStatus::Error);
    QVERIFY2(c.results[1].error.rfind("http 500 after 2 attempts", 0) == 0,
             c.results[1].error.c_str());
    QVERIFY2(c.results[1].error.find("[redacted]") != std::string::npos,
             c.results[1].error.c_str());
    QVERIFY2(c.results[2].error.rfind("http 400: ", 0) == 0, c.results[2].error.c_str());
    for (const auto& [i, r] : c.results) errors.push_back(r.error);
  }
  {
    EndpointConfig wrong = ep;
    wrong.apiKeyEnv = "RAGSCOPE_TEST_WRONG_KEY";
    auto provider = makeHttpProvider(wrong, topts);
    Collector c;
    provider->submit(chat("wrong key"), c.callback(0));
    provider->waitIdle();
    QVERIFY(c.eachOnce(1));
    QVERIFY2(c.results[0].error.rfind("auth: HTTP 401", 0) == 0, c.results[0].error.c_str());
    QCOMPARE(c.results[0].attempts, 1);
    errors.push_back(c.results[0].error);
  }
  {
    EndpointConfig unset = ep;
    unset.apiKeyEnv = "RAGSCOPE_TEST_UNSET_KEY";
    auto provider = makeHttpProvider(unset, topts);
    Collector c;
    provider->submit(chat("no key"), c.callback(0));
    provider->waitIdle();
    QVERIFY(c.eachOnce(1));
    QCOMPARE(QString::fromStdString(c.results[0].error),
             QStringLiteral("auth: environment variable RAGSCOPE_TEST_UNSET_KEY is not set"));
  }
  const ConnectionTest t = testConnection(ep, topts);
  QVERIFY2(t.ok, t.error.c_str());
  errors.push_back(t.error);

  // The server did receive the key, as a bearer token, on every authorised request.
  const auto log = server.log();
  int withKey = 0;
  for (const auto& e : log)
    if (e.authorization == "Bearer " + marker) ++withKey;
  QCOMPARE(withKey, 1 + 2 + 1 + 1);  // normal, echo x2, 400, models
  // ... and it appears nowhere the transport wrote.
  for (const auto& e : errors) QVERIFY2(e.find(marker) == std::string::npos, e.c_str());
  QFile f(transportLog);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const QByteArray written = f.readAll();
  QVERIFY(written.count('\n') >= 5);  // one line per attempt
  QVERIFY(!written.contains(QByteArray::fromStdString(marker)));
  QVERIFY(!written.contains("sk-wrong-key"));
  QFile s(serverLog);
  QVERIFY(s.open(QIODevice::ReadOnly));
  QVERIFY(!s.readAll().contains(QByteArray::fromStdString(marker)));
  qunsetenv("RAGSCOPE_TEST_API_KEY");
  qunsetenv("RAGSCOPE_TEST_WRONG_KEY");
}

void TestLlmTransport::embeddingsAndRerank() {
  TestServer server;
  QVERIFY(server.start());
  {
    EndpointConfig ep = endpointFor(server);
    ep.kind = EndpointKind::Embeddings;
    ep.pricePer1kInput = 1.0;
    auto provider = makeHttpProvider(ep, fastRetries());
    Collector c;
    LlmRequest r;
    r.kind = EndpointKind::Embeddings;
    r.inputs = {"first passage", "second one here", "third"};
    provider->submit(r, c.callback(0));
    provider->waitIdle();
    QVERIFY(c.eachOnce(1));
    const auto& res = c.results[0];
    QVERIFY2(res.status == CallStatus::Ok, res.error.c_str());
    QCOMPARE(res.embeddings.size(), std::size_t(3));
    for (std::size_t i = 0; i < 3; ++i)
      QCOMPARE(res.embeddings[i], TestServer::embed(r.inputs[i], 8));
    QCOMPARE(res.usage.promptTokens, std::int64_t(2 + 3 + 1));
    QCOMPARE(res.usage.costUsd, 6 / 1000.0);
    QCOMPARE(QString::fromStdString(server.log().back().path), QStringLiteral("/v1/embeddings"));
  }
  {
    EndpointConfig ep = endpointFor(server);
    ep.kind = EndpointKind::Rerank;
    auto provider = makeHttpProvider(ep, fastRetries());
    Collector c;
    LlmRequest r;
    r.kind = EndpointKind::Rerank;
    r.query = "capital of France";
    r.documents = {"Berlin is in Germany", "Paris is the capital of France",
                   "France has a capital"};
    provider->submit(r, c.callback(0));
    provider->waitIdle();
    QVERIFY(c.eachOnce(1));
    const auto& res = c.results[0];
    QVERIFY2(res.status == CallStatus::Ok, res.error.c_str());
    QCOMPARE(res.rerank.size(), std::size_t(3));
    // Scores by hand: query words {capital, of, france}.
    std::map<std::size_t, double> byIndex(res.rerank.begin(), res.rerank.end());
    QCOMPARE(byIndex[0], 0.0);
    QCOMPARE(byIndex[1], 1.0);
    QCOMPARE(byIndex[2], 2.0 / 3.0);
    QCOMPARE(res.rerank.front().first, std::size_t(1));  // server order: best first
  }
}

void TestLlmTransport::connectionErrors() {
  // A port that was just free: connection refused.
  int freePort = 0;
  {
    TestServer probe;
    QVERIFY(probe.start());
    freePort = probe.port();
  }
  struct Case {
    std::string baseUrl;
    std::string errorStart;
  };
  TestServer plain;
  QVERIFY(plain.start());
  const std::vector<Case> cases = {
      {"http://127.0.0.1:" + std::to_string(freePort) + "/v1", "connection refused: "},
      {"http://nonexistent.invalid/v1", "dns: "},
      // TLS to a plain-HTTP server: the handshake fails.
      {"https://127.0.0.1:" + std::to_string(plain.port()) + "/v1", "tls: "},
  };
  for (const auto& k : cases) {
    Collector c;
    callOnce(k.baseUrl, c);
    QVERIFY(c.eachOnce(1));
    QCOMPARE(c.results[0].status, CallStatus::Error);
    QVERIFY2(c.results[0].error.rfind(k.errorStart, 0) == 0, c.results[0].error.c_str());
    QCOMPARE(c.results[0].attempts, 1);  // none of these is worth retrying
  }
}

void TestLlmTransport::untrustedCertificateRejected() {
  // TLS verification is on: a server with a self-signed certificate is refused at the handshake,
  // before any request is sent. (With verification off, the handshake would succeed and the
  // call would fail later with an HTTP or parse error instead of a certificate error.)
  QTemporaryDir dir;
  const QString cert = dir.filePath("cert.pem"), key = dir.filePath("key.pem");
  QProcess gen;
  gen.start("openssl", {"req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out",
                        cert, "-days", "1", "-subj", "/CN=127.0.0.1"});
  QVERIFY2(gen.waitForFinished(30000) && gen.exitCode() == 0,
           "openssl is needed for this test (scripts/setup installs it)");
  int port = 0;
  {
    TestServer probe;  // a port that was just free
    QVERIFY(probe.start());
    port = probe.port();
  }
  QProcess tls;
  tls.setProcessChannelMode(QProcess::MergedChannels);
  tls.start("openssl", {"s_server", "-accept", QString("127.0.0.1:%1").arg(port), "-cert", cert,
                        "-key", key, "-www"});
  QVERIFY(tls.waitForStarted());
  QByteArray banner;
  QElapsedTimer wait;
  wait.start();
  while (!banner.contains("ACCEPT") && wait.elapsed() < 10000) {
    tls.waitForReadyRead(100);
    banner += tls.readAll();
  }
  QVERIFY2(banner.contains("ACCEPT"), banner.constData());  // s_server says ACCEPT once listening
  Collector c;
  callOnce("https://127.0.0.1:" + std::to_string(port) + "/v1", c);
  tls.kill();
  tls.waitForFinished(5000);
  QVERIFY(c.eachOnce(1));
  QCOMPARE(c.results[0].status, CallStatus::Error);
  const QString error = QString::fromStdString(c.results[0].error);
  qInfo("%s", qPrintable(error));
  QVERIFY2(error.startsWith("tls: ") && error.contains("certificate", Qt::CaseInsensitive),
           qPrintable(error));
  QCOMPARE(c.results[0].attempts, 1);
}

void TestLlmTransport::testConnectionListsModels() {
  ragscope::testserver::Options opts;
  opts.models = {"alpha", "test-model"};
  TestServer server(opts);
  QVERIFY(server.start());
  EndpointConfig ep = endpointFor(server);
  const ConnectionTest t = testConnection(ep);
  QVERIFY2(t.ok, t.error.c_str());
  QCOMPARE(t.httpStatus, 200);
  QCOMPARE(t.modelIds, (std::vector<std::string>{"alpha", "test-model"}));
  QVERIFY(t.modelFound);
  QVERIFY(t.latencyMs > 0);
  std::string error;
  QCOMPARE(listModels(ep, &error).size(), std::size_t(2));
  QVERIFY(error.empty());
  server.addRule(rule(Behaviour::Status, -1, "/models"));
  const ConnectionTest bad = testConnection(ep);
  QVERIFY(!bad.ok);
  QVERIFY2(bad.error.rfind("http 500: ", 0) == 0, bad.error.c_str());
}

QTEST_GUILESS_MAIN(TestLlmTransport)
#include "tst_llmtransport.moc"
