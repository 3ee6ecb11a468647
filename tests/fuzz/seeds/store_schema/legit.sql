CREATE TABLE IF NOT EXISTS query_scores (qid TEXT NOT NULL, measure TEXT NOT NULL, value REAL, PRIMARY KEY (qid, measure));
INSERT INTO query_scores VALUES ('q1','P_5',0.4);
