#pragma once
// Typed settings keys declared once. Everything the app remembers between sessions goes through
// here (QSettings underneath); secrets never do: API keys come from the environment or a keychain.

#include <QByteArray>
#include <QSettings>
#include <QString>
#include <QStringList>
#include <QVariant>
#include <QVector>

namespace ragscope::ui {

// One key with its type and default: reading and writing cannot disagree on either.
template <class T>
struct Preference {
  const char* key;
  T defaultValue{};

  T get() const {
    QSettings settings;
    const QVariant v = settings.value(QLatin1String(key));
    return v.isValid() && v.canConvert<T>() ? v.value<T>() : defaultValue;
  }
  void set(const T& value) const {
    QSettings settings;
    settings.setValue(QLatin1String(key), QVariant::fromValue(value));
  }
};

// A dataset as the user opened it: the files/folders and the format chosen for each (empty format
// = detect), or a project file with the name of one of its datasets.
struct RecentDataset {
  struct Part {
    QString path;
    QString format;
    bool operator==(const Part&) const = default;
  };
  QString name;
  QVector<Part> parts;
  QString project;         // non-empty: a .ragscope.json project file
  QString projectDataset;  // dataset name within the project

  bool operator==(const RecentDataset&) const = default;
  // Menu label: the name, else the first path.
  QString label() const;
};

class Preferences {
 public:
  static inline const Preference<QByteArray> windowGeometry{"window/geometry"};
  static inline const Preference<QByteArray> windowState{"window/state"};
  static inline const Preference<QString> lastFolder{"files/lastFolder"};
  static inline const Preference<int> maxRecent{"files/maxRecent", 10};
  // LLM endpoints as a JSON array of llm::toJson(EndpointConfig): key *names* only, never keys.
  static inline const Preference<QString> llmEndpoints{"llm/endpoints"};
  // Folder of the run stores the GUI creates and lists (empty: <app data>/runs).
  static inline const Preference<QString> runsFolder{"llm/runsFolder"};
  // Project parts outside their project's folder that the user agreed to read (or saved there
  // from this GUI): "<project file>\n<resolved part path>" entries, newest last.
  static inline const Preference<QStringList> confirmedOutsideParts{
      "projects/confirmedOutsideParts"};
  // The name human labels are stored under (LabelBook): asked once, then kept.
  static inline const Preference<QString> annotatorName{"labels/annotator"};

  // Most recent first, without duplicates.
  static QVector<RecentDataset> recentDatasets();
  static void addRecentDataset(const RecentDataset& entry);
  static void clearRecentDatasets();

 private:
  static void writeRecent(const QVector<RecentDataset>& list);
};

}  // namespace ragscope::ui
