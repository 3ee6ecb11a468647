#pragma once
// How two qrels files order the systems (core::trecrag::SystemAgreement): one row per run with
// its mean of the measure under A and under B, the difference, its rank under both (1 = the
// highest mean, tied means share their mean rank) and how far the rank moved. DisplayRole is the
// text as the CLI prints it (four decimals, "2.5" for a shared rank); EditRole and SortRole are
// the numbers (sorting, File > Export view).

#include <QAbstractTableModel>
#include <vector>

#include "core/trecrag/qrelsagreement.h"

namespace ragscope::ui {

class SystemAgreementModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Name, MeanA, MeanB, Difference, RankA, RankB, RankMove, ColumnCount };
  static constexpr int SortRole = Qt::UserRole + 1;

  explicit SystemAgreementModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  void setSystems(std::vector<core::trecrag::SystemScore> systems);
  const std::vector<core::trecrag::SystemScore>& systems() const { return m_systems; }

  // "0.5058", "–" when undefined; "3", "2.5" for ranks: shared by the view's other texts.
  static QString meanText(double v);
  static QString rankText(double r);

 private:
  std::vector<core::trecrag::SystemScore> m_systems;
};

}  // namespace ragscope::ui
