#include "ui/report/safefile.h"

#include <QBuffer>

#include "core/util/atomicfile.h"

namespace ragscope::ui {

bool writeBytesSafely(const QString& path, const QByteArray& bytes, std::string* error) {
  std::string ignored;
  return core::writeBytesAtomically(path.toStdString(),
                                    std::string_view(bytes.constData(), std::size_t(bytes.size())),
                                    error ? error : &ignored);
}

bool savePngSafely(const QImage& image, const QString& path, std::string* error) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (!image.save(&buffer, "PNG")) {
    if (error) *error = path.toStdString() + ": the image could not be encoded as PNG";
    return false;
  }
  return writeBytesSafely(path, bytes, error);
}

}  // namespace ragscope::ui
