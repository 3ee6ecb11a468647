#pragma once
// Qt's own file writers (QImage::save, QPdfWriter, QSvgGenerator with a file name) open the
// target by name and follow a symlink there. The workbench draws into memory instead and writes
// the bytes with the engine's one safe writer (core/util/atomicfile.h): a temporary file beside
// the target, renamed over it, so a link at the name is replaced and never written through.
//
//   QByteArray bytes = ...;                     // a PDF, an SVG drawn into a QBuffer
//   if (!writeBytesSafely(path, bytes, &error)) ...
//   savePngSafely(widget->grab().toImage(), path, &error);

#include <QByteArray>
#include <QImage>
#include <QString>
#include <string>

namespace ragscope::ui {

bool writeBytesSafely(const QString& path, const QByteArray& bytes, std::string* error = nullptr);
bool savePngSafely(const QImage& image, const QString& path, std::string* error = nullptr);

}  // namespace ragscope::ui
