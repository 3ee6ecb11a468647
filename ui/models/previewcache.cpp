#include "ui/models/previewcache.h"

#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <utility>

namespace ragscope::ui {

namespace {

// A screenful of rows is a few dozen; a fast scroll asks for many more, of which only the last
// ones are still on screen.
constexpr std::size_t kMaxWanted = 200;
// Previews kept: a few screens of scrolling back and forth, a few MB at most.
constexpr qsizetype kMaxKept = 4000;

using Previews = std::vector<std::pair<std::size_t, QString>>;

// A prefix cut at a byte count may end inside a UTF-8 sequence: drop that partial character
// rather than show a replacement mark at the end of a tooltip.
QString utf8Prefix(std::string text, std::size_t cut) {
  if (text.size() >= cut && !text.empty()) {
    std::size_t lead = text.size() - 1;
    while (lead > 0 && (static_cast<unsigned char>(text[lead]) & 0xC0) == 0x80) --lead;
    const auto c = static_cast<unsigned char>(text[lead]);
    const std::size_t length = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    if (lead + length > text.size()) text.resize(lead);
  }
  return QString::fromStdString(text);
}

}  // namespace

PreviewCache::PreviewCache(QObject* parent) : QObject(parent) {
  // One reader: reads of one screen go one after the other, and never hold the global pool.
  m_pool.setMaxThreadCount(1);
}

PreviewCache::~PreviewCache() {
  ++m_generation;
  m_pool.waitForDone();
}

void PreviewCache::setDataset(std::shared_ptr<const core::Dataset> dataset) {
  m_dataset = std::move(dataset);
  ++m_generation;
  m_previews.clear();
  m_wanted.clear();
  m_pending.clear();
}

std::optional<QString> PreviewCache::preview(std::size_t position) {
  if (const auto it = m_previews.constFind(position); it != m_previews.constEnd()) return *it;
  if (!m_dataset || position >= m_dataset->corpus.size()) return QString();
  if (!m_pending.contains(position)) {
    m_pending.insert(position, true);
    m_wanted.push_back(position);
    if (m_wanted.size() > kMaxWanted) {
      for (std::size_t i = 0; i + kMaxWanted < m_wanted.size(); ++i) m_pending.remove(m_wanted[i]);
      m_wanted.erase(m_wanted.begin(), m_wanted.end() - kMaxWanted);
    }
  }
  // Batched: the view asks for every visible row in one paint, then the reads start.
  if (!m_scheduled && !m_reading) {
    m_scheduled = true;
    QTimer::singleShot(0, this, &PreviewCache::fetch);
  }
  return std::nullopt;
}

void PreviewCache::fetch() {
  m_scheduled = false;
  if (m_reading || m_wanted.empty() || !m_dataset) return;
  m_reading = true;
  const quint64 generation = m_generation;
  auto* watcher = new QFutureWatcher<Previews>(this);
  connect(watcher, &QFutureWatcher<Previews>::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    m_reading = false;
    if (generation != m_generation) {
      fetch();  // asked for meanwhile, for the new dataset
      return;
    }
    if (m_previews.size() > kMaxKept) m_previews.clear();
    std::vector<std::size_t> positions;
    for (auto& [position, text] : watcher->result()) {
      m_pending.remove(position);
      m_previews.insert(position, std::move(text));
      positions.push_back(position);
    }
    fetch();
    emit ready(positions);
  });
  watcher->setFuture(
      QtConcurrent::run(&m_pool, [dataset = m_dataset, wanted = std::exchange(m_wanted, {})] {
        Previews out;
        out.reserve(wanted.size());
        for (std::size_t p : wanted)
          out.emplace_back(
              p, utf8Prefix(dataset->corpus.at(p).textPrefix(kPreviewBytes), kPreviewBytes));
        return out;
      }));
}

}  // namespace ragscope::ui
