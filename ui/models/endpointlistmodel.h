#pragma once
// The configured LLM endpoints as a table (name, kind, base URL, model, key source, last test),
// loaded from and saved to Preferences::llmEndpoints as llm::toJson(EndpointConfig). The JSON has
// the key's *name* (environment variable or keychain entry) only: EndpointConfig has no field that
// could hold a key, so nothing this model saves can contain one.

#include <QAbstractTableModel>
#include <QString>
#include <vector>

#include "core/llm/provider.h"

namespace ragscope::ui {

class EndpointListModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Name, Kind, BaseUrl, Model, Key, LastTest, ColumnCount };

  explicit EndpointListModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  const std::vector<core::llm::EndpointConfig>& endpoints() const { return m_endpoints; }
  const core::llm::EndpointConfig* endpoint(int row) const;
  int indexOf(const QString& name) const;

  // Appends, returning the row; an empty or taken name is made unique ("local (2)").
  int add(core::llm::EndpointConfig config);
  void replace(int row, core::llm::EndpointConfig config);
  int duplicate(int row);
  void remove(int row);
  // The outcome of the latest connection test of a row, shown in the LastTest column (not saved).
  void setTestResult(int row, bool ok, const QString& text);

  QString uniqueName(const QString& wanted, int exceptRow = -1) const;

  // Preferences::llmEndpoints <-> the list. load() keeps entries it can read and reports the rest.
  bool load(QString* message = nullptr);
  void save() const;
  static QString toJsonText(const std::vector<core::llm::EndpointConfig>& list);
  static std::vector<core::llm::EndpointConfig> fromJsonText(const QString& text, QString* message);
  // The saved list without building a model (for pages that pick an endpoint).
  static std::vector<core::llm::EndpointConfig> saved();
  // "env $VAR", "keychain entry", "none".
  static QString keySourceText(const core::llm::EndpointConfig& config);

 signals:
  void endpointsChanged();

 private:
  struct TestState {
    bool tested = false;
    bool ok = false;
    QString text;
  };
  std::vector<core::llm::EndpointConfig> m_endpoints;
  std::vector<TestState> m_tests;  // parallel to m_endpoints
};

}  // namespace ragscope::ui
