# ref-tags.jq: the ten most used tags, and how often each group uses them
[.[] | .group as $g | .tags[] | {tag: ., group: $g}]
| group_by(.tag)
| map({tag: .[0].tag, n: length, groups: (map(.group) | unique)})
| sort_by(-.n, .tag) | .[:10]
