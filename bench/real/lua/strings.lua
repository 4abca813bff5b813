-- strings.lua N: string churn (format, concat, gsub, gmatch, find, tables of strings).
local N = tonumber(arg and arg[1]) or 10000
local words, count, total = {}, {}, 0
for i = 1, N do
  local s = string.format("item-%d:%x;%s", i, i * 7919 % 65536, ("ab"):rep(i % 7))
  s = s:gsub("%d+", function(d) return #d .. "" end)
  for w in s:gmatch("[%w]+") do
    count[w] = (count[w] or 0) + 1
    total = total + #w
  end
  words[#words + 1] = s:upper()
  if #words > 64 then
    local joined = table.concat(words, ",")
    if joined:find("ITEM-3", 1, true) then total = total + 1 end
    words = {}
  end
end
local keys = {}
for k in pairs(count) do keys[#keys + 1] = k end
table.sort(keys)
local h = 0
for _, k in ipairs(keys) do h = (h * 31 + count[k] + #k) % 1000000007 end
print(#keys, total, h)
