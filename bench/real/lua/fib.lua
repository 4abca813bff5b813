-- fib.lua N: naive recursive Fibonacci (function calls, integer add).
local n = tonumber(arg and arg[1]) or 27
local function fib(k) if k < 2 then return k end return fib(k - 1) + fib(k - 2) end
print(("fib(%d) = %d"):format(n, fib(n)))
