#include "ui/models/endpointlistmodel.h"

#include <QBrush>
#include <QColor>
#include <nlohmann/json.hpp>

#include "core/llm/llmjson.h"
#include "core/llm/providerfactory.h"
#include "core/llm/trustedendpoints.h"
#include "core/util/urlredact.h"
#include "ui/preferences.h"

namespace ragscope::ui {

EndpointListModel::EndpointListModel(QObject* parent) : QAbstractTableModel(parent) {}

int EndpointListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(m_endpoints.size());
}

int EndpointListModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QString EndpointListModel::keySourceText(const core::llm::EndpointConfig& c) {
  if (core::llm::isOfflineEndpoint(c)) return tr("not needed");
  QStringList parts;
  if (!c.keychainEntry.empty())
    parts << tr("keychain \"%1\"").arg(QString::fromStdString(c.keychainEntry));
  if (!c.apiKeyEnv.empty()) parts << tr("$%1").arg(QString::fromStdString(c.apiKeyEnv));
  return parts.isEmpty() ? tr("none") : parts.join(tr(", else "));
}

QVariant EndpointListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const auto& c = m_endpoints[std::size_t(index.row())];
  const auto& t = m_tests[std::size_t(index.row())];
  if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
    switch (index.column()) {
      case Name:
        return QString::fromStdString(c.name);
      case Kind:
        return QString::fromUtf8(core::llm::endpointKindName(c.kind).data());
      case BaseUrl:
        return core::llm::isOfflineEndpoint(c) ? tr("offline (heuristic, no server)")
                                               : QString::fromStdString(core::shownUrl(c.baseUrl));
      case Model:
        return QString::fromStdString(c.model);
      case Key:
        return keySourceText(c);
      case LastTest:
        return t.tested ? t.text : (role == Qt::ToolTipRole ? tr("not tested yet") : QString());
      default:
        return {};
    }
  }
  if (role == Qt::ForegroundRole && index.column() == LastTest && t.tested)
    return QBrush(t.ok ? QColor(0x1b, 0x7a, 0x2e) : QColor(0xb0, 0x1c, 0x1c));
  return {};
}

QVariant EndpointListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Name:
      return tr("Name");
    case Kind:
      return tr("Kind");
    case BaseUrl:
      return tr("Base URL");
    case Model:
      return tr("Model");
    case Key:
      return tr("API key from");
    case LastTest:
      return tr("Last test");
    default:
      return {};
  }
}

const core::llm::EndpointConfig* EndpointListModel::endpoint(int row) const {
  return row >= 0 && row < rowCount() ? &m_endpoints[std::size_t(row)] : nullptr;
}

int EndpointListModel::indexOf(const QString& name) const {
  for (std::size_t i = 0; i < m_endpoints.size(); ++i)
    if (QString::fromStdString(m_endpoints[i].name) == name) return int(i);
  return -1;
}

QString EndpointListModel::uniqueName(const QString& wanted, int exceptRow) const {
  const QString base = wanted.trimmed().isEmpty() ? tr("endpoint") : wanted.trimmed();
  auto taken = [&](const QString& n) {
    for (std::size_t i = 0; i < m_endpoints.size(); ++i)
      if (int(i) != exceptRow && QString::fromStdString(m_endpoints[i].name) == n) return true;
    return false;
  };
  if (!taken(base)) return base;
  for (int n = 2;; ++n) {
    const QString candidate = QStringLiteral("%1 (%2)").arg(base).arg(n);
    if (!taken(candidate)) return candidate;
  }
}

int EndpointListModel::add(core::llm::EndpointConfig config) {
  config.name = uniqueName(QString::fromStdString(config.name)).toStdString();
  const int row = rowCount();
  beginInsertRows({}, row, row);
  m_endpoints.push_back(std::move(config));
  m_tests.emplace_back();
  endInsertRows();
  emit endpointsChanged();
  return row;
}

void EndpointListModel::replace(int row, core::llm::EndpointConfig config) {
  if (row < 0 || row >= rowCount()) return;
  config.name = uniqueName(QString::fromStdString(config.name), row).toStdString();
  m_endpoints[std::size_t(row)] = std::move(config);
  m_tests[std::size_t(row)] = {};  // a changed endpoint has not been tested
  emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
  emit endpointsChanged();
}

int EndpointListModel::duplicate(int row) {
  if (row < 0 || row >= rowCount()) return -1;
  core::llm::EndpointConfig copy = m_endpoints[std::size_t(row)];
  copy.name = tr("%1 copy").arg(QString::fromStdString(copy.name)).toStdString();
  return add(std::move(copy));
}

void EndpointListModel::remove(int row) {
  if (row < 0 || row >= rowCount()) return;
  beginRemoveRows({}, row, row);
  m_endpoints.erase(m_endpoints.begin() + row);
  m_tests.erase(m_tests.begin() + row);
  endRemoveRows();
  emit endpointsChanged();
}

void EndpointListModel::setTestResult(int row, bool ok, const QString& text) {
  if (row < 0 || row >= rowCount()) return;
  m_tests[std::size_t(row)] = {true, ok, text};
  emit dataChanged(index(row, LastTest), index(row, LastTest));
}

QString EndpointListModel::toJsonText(const std::vector<core::llm::EndpointConfig>& list) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& c : list) array.push_back(core::llm::toJson(c));
  return QString::fromStdString(array.dump());
}

std::vector<core::llm::EndpointConfig> EndpointListModel::fromJsonText(const QString& text,
                                                                       QString* message) {
  std::vector<core::llm::EndpointConfig> list;
  if (text.trimmed().isEmpty()) return list;
  const auto j = nlohmann::json::parse(text.toStdString(), nullptr, false);
  if (!j.is_array()) {
    if (message) *message = tr("the saved endpoint list is not a JSON array; starting empty");
    return list;
  }
  int unreadable = 0;
  for (const auto& e : j) {
    try {
      list.push_back(core::llm::endpointFromJson(e));
    } catch (const std::exception&) {
      ++unreadable;
    }
  }
  if (unreadable && message)
    *message = tr("%n saved endpoint(s) could not be read and were left out", "", unreadable);
  return list;
}

std::vector<core::llm::EndpointConfig> EndpointListModel::saved() {
  return fromJsonText(Preferences::llmEndpoints.get(), nullptr);
}

bool EndpointListModel::load(QString* message) {
  QString why;
  auto list = fromJsonText(Preferences::llmEndpoints.get(), &why);
  beginResetModel();
  m_endpoints = std::move(list);
  m_tests.assign(m_endpoints.size(), {});
  endResetModel();
  emit endpointsChanged();
  if (message) *message = why;
  return why.isEmpty();
}

void EndpointListModel::save() const {
  Preferences::llmEndpoints.set(toJsonText(m_endpoints));
  // Configured by the user: a run store naming one of these may send its calls there (also from
  // the CLI, which reads the registry, not these settings).
  const core::llm::TrustedEndpoints registry;
  for (const auto& e : m_endpoints) registry.add(e, "endpoints page");
}

}  // namespace ragscope::ui
