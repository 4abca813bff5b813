# ref-select.jq: records above a score, reshaped, with min/max over history
[.[] | select(.score > 40 and (.history | length) > 0)
 | {name, group, lo: (.history | min), hi: (.history | max),
    rel: (.parent.rel // "none"), loc}]
| sort_by(.group, .name)
