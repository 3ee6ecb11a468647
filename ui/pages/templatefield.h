#pragma once
// A prompt template chosen on a page: a path (empty: the built-in template) with a browse button
// and "View / edit…", which shows the template's text (the file's, else the built-in one) in an
// editor and saves an edited copy to a file the user picks, which then becomes the template.
// Files are read and written off the GUI thread. The job reads the template again when it is
// planned and records it with its SHA-256 in the run store.

#include <QString>
#include <QWidget>
#include <string>

class QLineEdit;

namespace ragscope::ui {

class TemplateField : public QWidget {
  Q_OBJECT
 public:
  // `builtin` is shown when no file is chosen; `placeholders` names what the template must hold.
  TemplateField(const QString& title, std::string builtin, const QString& placeholders,
                QWidget* parent = nullptr);

  QString path() const;
  void setPath(const QString& path);
  void setBuiltin(std::string builtin) { m_builtin = std::move(builtin); }

 signals:
  void changed();

 private:
  void edit();

  QString m_title;
  std::string m_builtin;
  QString m_placeholders;
  QLineEdit* m_path;
};

}  // namespace ragscope::ui
