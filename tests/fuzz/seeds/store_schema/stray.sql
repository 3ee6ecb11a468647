CREATE TABLE extra(x);
CREATE INDEX extra_x ON extra(x);
CREATE INDEX items_kind ON items(kind);
