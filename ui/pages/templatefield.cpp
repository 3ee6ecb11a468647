#include "ui/pages/templatefield.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <string>

#include "core/util/atomicfile.h"
#include "core/util/inputfile.h"

namespace ragscope::ui {

TemplateField::TemplateField(const QString& title, std::string builtin, const QString& placeholders,
                             QWidget* parent)
    : QWidget(parent),
      m_title(title),
      m_builtin(std::move(builtin)),
      m_placeholders(placeholders),
      m_path(new QLineEdit) {
  m_path->setPlaceholderText(tr("built-in"));
  m_path->setToolTip(tr("A template file with %1; empty: the built-in template").arg(placeholders));
  connect(m_path, &QLineEdit::editingFinished, this, &TemplateField::changed);
  auto* browse = new QPushButton(tr("…"));
  browse->setFixedWidth(30);
  browse->setToolTip(tr("Choose a template file"));
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, m_title);
    if (!f.isEmpty()) setPath(f);
  });
  auto* view = new QPushButton(tr("View / edit…"));
  connect(view, &QPushButton::clicked, this, &TemplateField::edit);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_path, 1);
  layout->addWidget(browse);
  layout->addWidget(view);
}

QString TemplateField::path() const { return m_path->text().trimmed(); }

void TemplateField::setPath(const QString& path) {
  m_path->setText(path);
  emit changed();
}

void TemplateField::edit() {
  const QString file = path();
  auto* watcher = new QFutureWatcher<std::pair<bool, QString>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, file] {
    const auto [ok, text] = watcher->result();
    watcher->deleteLater();
    if (!ok) {
      QMessageBox::warning(this, m_title, tr("%1 cannot be read.").arg(file));
      return;
    }
    QDialog dialog(this);
    dialog.setWindowTitle(m_title);
    dialog.resize(760, 560);
    auto* editor = new QPlainTextEdit(text);
    editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    auto* note = new QLabel(
        tr("%1. Placeholders: %2. Save an edited copy to use it; the run store records the "
           "template and its SHA-256.")
            .arg(file.isEmpty() ? tr("The built-in template") : file, m_placeholders));
    note->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Close);
    buttons->button(QDialogButtonBox::Save)->setText(tr("Save as…"));
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, [this, &dialog, editor] {
      const QString target = QFileDialog::getSaveFileName(&dialog, tr("Save template"),
                                                          QStringLiteral("template.txt"));
      if (target.isEmpty()) return;
      // Written off the GUI thread; the field takes the path once the file is there.
      auto* saver = new QFutureWatcher<bool>(this);
      connect(saver, &QFutureWatcherBase::finished, this, [this, saver, target] {
        const bool saved = saver->result();
        saver->deleteLater();
        if (saved)
          setPath(target);
        else
          QMessageBox::warning(this, m_title, tr("%1 could not be written.").arg(target));
      });
      saver->setFuture(QtConcurrent::run([target, text = editor->toPlainText()] {
        const QByteArray bytes = text.toUtf8();
        std::string error;
        return core::writeBytesAtomically(
            target.toStdString(), std::string_view(bytes.constData(), std::size_t(bytes.size())),
            &error);
      }));
      dialog.accept();
    });
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(note);
    layout->addWidget(editor, 1);
    layout->addWidget(buttons);
    dialog.exec();
  });
  watcher->setFuture(QtConcurrent::run([file, builtin = m_builtin]() -> std::pair<bool, QString> {
    if (file.isEmpty()) return {true, QString::fromStdString(builtin)};
    std::string why;
    const auto text = core::readBoundedFile(file.toStdString(), core::kMaxTemplateBytes,
                                            "a prompt template", why);
    if (!text) return {false, {}};
    return {true, QString::fromStdString(*text)};
  }));
}

}  // namespace ragscope::ui
