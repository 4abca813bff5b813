# train-rows.jq: one CSV row per record (string building, @csv escaping)
.[] | [.id, .name, .score, (.tags | join(";")), (.history | length), (.note // "")] | @csv
