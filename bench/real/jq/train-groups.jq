# train-groups.jq: per group, how many active records and their score sum
map(select(.active))
| group_by(.group)
| map({group: .[0].group, n: length, score: (map(.score) | add),
       tags: (map(.tags | length) | add)})
