#pragma once
// A document's text, read-only, with its paragraphs numbered in a margin the way KILT provenance
// counts them (0, 1, 2, ...), so that an analyst can check a provenance's "paragraphs 3-4" against
// the page. The numbers are painted beside the text, not put into it: the text stays exactly the
// document's text (copying a passage copies no numbers).

#include <QPlainTextEdit>
#include <vector>

#include "core/data/model.h"

namespace ragscope::ui {

class DocumentTextView : public QPlainTextEdit {
  Q_OBJECT
 public:
  struct Content {
    QString text;
    std::size_t characters = 0;  // Unicode code points
    // The text block (line) where each paragraph starts; empty when paragraphs are not numbered.
    std::vector<int> paragraphStarts;
  };

  // Reads a document's text (and, with `numberParagraphs`, where its paragraphs start) for
  // setContent(). Builds no widget: run it off the GUI thread for texts left in their file.
  static Content read(const core::Document& doc, bool numberParagraphs);

  explicit DocumentTextView(QWidget* parent = nullptr);
  void setContent(Content content);
  void clearContent();

  // Paragraphs numbered in the margin (0 when none are), and the number shown beside a block (-1
  // when none: not numbered, or the block continues a paragraph).
  int numberedParagraphs() const { return int(m_starts.size()); }
  int paragraphAtBlock(int block) const;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  class Margin;
  int marginWidth() const;
  void updateMargin();
  void paintMargin(QPaintEvent* event);

  Margin* m_margin;
  std::vector<int> m_starts;
};

}  // namespace ragscope::ui
