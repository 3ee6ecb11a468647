#include "ui/pages/documenttextview.h"

#include <QPainter>
#include <QTextBlock>
#include <algorithm>

namespace ragscope::ui {

class DocumentTextView::Margin : public QWidget {
 public:
  explicit Margin(DocumentTextView* view) : QWidget(view), m_view(view) {}
  QSize sizeHint() const override { return {m_view->marginWidth(), 0}; }

 protected:
  void paintEvent(QPaintEvent* event) override { m_view->paintMargin(event); }

 private:
  DocumentTextView* m_view;
};

DocumentTextView::Content DocumentTextView::read(const core::Document& doc, bool numberParagraphs) {
  Content out;
  const std::string text = doc.fullText();
  out.text = QString::fromStdString(text);
  out.characters = std::size_t(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;  // not a UTF-8 continuation byte
  }));
  if (!numberParagraphs) return out;
  const std::size_t paragraphs = doc.paragraphCount();
  if (paragraphs < 2) return out;
  const std::size_t lines = std::size_t(std::count(text.begin(), text.end(), '\n')) + 1;
  if (lines == paragraphs) {
    // One paragraph a line (KILT paragraphs end in the "\n" the text joins them with).
    for (std::size_t i = 0; i < paragraphs; ++i) out.paragraphStarts.push_back(int(i));
    return out;
  }
  // A paragraph holding line breaks of its own: where each one starts comes from reading them
  // one by one (a pread each, off the GUI thread).
  int block = 0;
  for (std::size_t i = 0; i < paragraphs; ++i) {
    std::string error;
    const auto paragraph = doc.paragraphRange(i, i, error);
    if (!paragraph) {  // unreadable: the text unnumbered, as it was read
      out.paragraphStarts.clear();
      return out;
    }
    out.paragraphStarts.push_back(block);
    block += int(std::count(paragraph->begin(), paragraph->end(), '\n')) + 1;
  }
  if (block != int(lines)) out.paragraphStarts.clear();  // the file changed between the reads
  return out;
}

DocumentTextView::DocumentTextView(QWidget* parent)
    : QPlainTextEdit(parent), m_margin(new Margin(this)) {
  setReadOnly(true);
  connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
    if (dy != 0)
      m_margin->scroll(0, dy);
    else
      m_margin->update(0, rect.y(), m_margin->width(), rect.height());
  });
  updateMargin();
}

void DocumentTextView::setContent(Content content) {
  m_starts = std::move(content.paragraphStarts);
  setPlainText(content.text);
  updateMargin();
}

void DocumentTextView::clearContent() {
  m_starts.clear();
  clear();
  updateMargin();
}

int DocumentTextView::paragraphAtBlock(int block) const {
  const auto it = std::lower_bound(m_starts.begin(), m_starts.end(), block);
  return it != m_starts.end() && *it == block ? int(it - m_starts.begin()) : -1;
}

int DocumentTextView::marginWidth() const {
  if (m_starts.empty()) return 0;
  const QString widest = QString::number(m_starts.size() - 1);
  return fontMetrics().horizontalAdvance(widest) + 14;
}

void DocumentTextView::updateMargin() {
  setViewportMargins(marginWidth(), 0, 0, 0);
  m_margin->setVisible(!m_starts.empty());
  const QRect r = contentsRect();
  m_margin->setGeometry(r.left(), r.top(), marginWidth(), r.height());
  m_margin->update();
}

void DocumentTextView::resizeEvent(QResizeEvent* event) {
  QPlainTextEdit::resizeEvent(event);
  const QRect r = contentsRect();
  m_margin->setGeometry(r.left(), r.top(), marginWidth(), r.height());
}

void DocumentTextView::paintMargin(QPaintEvent* event) {
  QPainter painter(m_margin);
  painter.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
  painter.setPen(QColor(0x80, 0x80, 0x80));
  const int width = m_margin->width() - 6;
  const int lineHeight = fontMetrics().height();
  for (QTextBlock block = firstVisibleBlock(); block.isValid(); block = block.next()) {
    const QRectF box = blockBoundingGeometry(block).translated(contentOffset());
    if (box.top() > event->rect().bottom()) break;
    if (!block.isVisible() || box.bottom() < event->rect().top()) continue;
    const int number = paragraphAtBlock(block.blockNumber());
    if (number >= 0)
      painter.drawText(0, int(box.top()), width, lineHeight, Qt::AlignRight,
                       QString::number(number));
  }
}

}  // namespace ragscope::ui
