#pragma once
// A page of the workbench: MainWindow lists pages in its sidebar and stacks them, so a new view
// (retrieval evaluation, statistics, endpoints...) joins the window with one addPage() call.

#include <QIcon>
#include <QString>
#include <QWidget>

namespace ragscope::ui {

class Page : public QWidget {
  Q_OBJECT
 public:
  using QWidget::QWidget;
  // Sidebar label and icon.
  virtual QString title() const = 0;
  virtual QIcon icon() const = 0;
  // Called when the page becomes the visible one (lazy refreshes go here).
  virtual void activated() {}
};

}  // namespace ragscope::ui
