# train-reshape.jq: rebuild each record (object construction, paths, arithmetic)
.[]
| .name |= ascii_upcase
| {id, name, where: "\(.loc.lat),\(.loc.lon)",
   sum: (.history | add // 0), big: (.count > 100000),
   parent: (.parent.id // null)}
