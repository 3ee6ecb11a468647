#include "ui/preferences.h"

#include <QFileInfo>
#include <algorithm>

namespace ragscope::ui {

namespace {
constexpr auto kRecentGroup = "recentDatasets";
}

QString RecentDataset::label() const {
  // A project's dataset says which project it belongs to.
  if (!project.isEmpty())
    return name.isEmpty() ? QFileInfo(project).fileName()
                          : QStringLiteral("%1 — %2").arg(name, QFileInfo(project).fileName());
  if (!name.isEmpty()) return name;
  if (!parts.isEmpty()) {
    const QFileInfo info(parts.front().path);
    QString first = info.fileName();
    // Bundle folders are often named "v1" or "data": say whose.
    if (info.isDir() && first.size() <= 4) {
      const QStringList dirs = info.absoluteFilePath().split(QLatin1Char('/'), Qt::SkipEmptyParts);
      first = dirs.mid(std::max<qsizetype>(0, dirs.size() - 3)).join(QLatin1Char('/'));
    }
    return parts.size() == 1 ? first : QStringLiteral("%1 (+%2)").arg(first).arg(parts.size() - 1);
  }
  return QFileInfo(project).fileName();
}

QVector<RecentDataset> Preferences::recentDatasets() {
  QSettings settings;
  QVector<RecentDataset> list;
  const int n = settings.beginReadArray(QLatin1String(kRecentGroup));
  for (int i = 0; i < n; ++i) {
    settings.setArrayIndex(i);
    RecentDataset entry;
    entry.name = settings.value("name").toString();
    entry.project = settings.value("project").toString();
    entry.projectDataset = settings.value("projectDataset").toString();
    const QStringList paths = settings.value("paths").toStringList();
    const QStringList formats = settings.value("formats").toStringList();
    for (qsizetype p = 0; p < paths.size(); ++p)
      entry.parts.push_back({paths[p], p < formats.size() ? formats[p] : QString()});
    if (!entry.parts.isEmpty() || !entry.project.isEmpty()) list.push_back(entry);
  }
  settings.endArray();
  return list;
}

void Preferences::writeRecent(const QVector<RecentDataset>& list) {
  QSettings settings;
  settings.remove(QLatin1String(kRecentGroup));
  settings.beginWriteArray(QLatin1String(kRecentGroup), int(list.size()));
  for (int i = 0; i < list.size(); ++i) {
    settings.setArrayIndex(i);
    const RecentDataset& e = list[i];
    QStringList paths, formats;
    for (const auto& part : e.parts) {
      paths << part.path;
      formats << part.format;
    }
    settings.setValue("name", e.name);
    settings.setValue("project", e.project);
    settings.setValue("projectDataset", e.projectDataset);
    settings.setValue("paths", paths);
    settings.setValue("formats", formats);
  }
  settings.endArray();
}

void Preferences::addRecentDataset(const RecentDataset& entry) {
  QVector<RecentDataset> list = recentDatasets();
  list.removeIf([&](const RecentDataset& e) {
    // The same files (or the same project dataset) opened again move to the top.
    return e.project == entry.project && e.projectDataset == entry.projectDataset &&
           e.parts == entry.parts;
  });
  list.prepend(entry);
  const int cap = qMax(1, maxRecent.get());
  if (list.size() > cap) list.resize(cap);
  writeRecent(list);
}

void Preferences::clearRecentDatasets() { writeRecent({}); }

}  // namespace ragscope::ui
