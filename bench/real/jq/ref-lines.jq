# ref-lines.jq: a tab-separated line per record with a note (interpolation, string functions)
.[] | select(.note != null)
| "\(.id)\t\(.name | ascii_downcase)\t\(.note | length)\t\(.history | map(tostring) | join(","))\t\(.score | floor)"
