-- Sluice: the SDK's retry budget shared by N processes (SPEC §4.2, §4.8): over a sliding window of n
-- slots, a retry is granted while retries < max(min_retries, ratio * requests) and, when the spread
-- window is on, over its m short slots retries + 1 <= max(spread_floor, ratio * requests) (SPEC §8:
-- a minute's budget is not spent within seconds; RetryBudgetConfig). One call = one operation,
-- atomic; the server's TIME is the clock.
--
-- KEYS[1]  the budget hash: a ring of n slots per counter, field q<i> (requests) / r<i> (retries)
--          = "<slot>:<count>" with i = slot mod n, and ls = the latest slot seen (a stale reading
--          counts in it, never rewinding the window); the spread window's ring is a<i> (requests) /
--          b<i> (retries) over short slots, its latest slot lt. Memory is constant.
-- ARGV[1]  op: R count a request, T try to take a retry, V view
-- ARGV[2]  now in µs, or '' for the server's TIME
-- ARGV[3]  the slot length in µs
-- ARGV[4]  n, the slots in the window
-- ARGV[5]  ratio (a decimal, as the caller's double prints it)
-- ARGV[6]  min_retries, the floor per window
-- ARGV[7]  the TTL in ms (the window and one slot: after that, nothing in it counts)
-- ARGV[8]  the spread window's slot length in µs, 0 when the spread window is off
-- ARGV[9]  m, the slots in the spread window
-- ARGV[10] spread_floor, the retries always allowed in the spread window
-- Reply:   {granted (1/0), requests in the window, retries in the window, now µs}

local function fdiv(a, b)
  local q = math.floor(a / b)
  local r = a - q * b
  if r < 0 then
    q = q - 1
  elseif r >= b then
    q = q + 1
  end
  return q
end

local key = KEYS[1]
local op = ARGV[1]
local now
if ARGV[2] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
else
  now = tonumber(ARGV[2])
end
local slot_us = tonumber(ARGV[3])
local n = tonumber(ARGV[4])
local ratio = tonumber(ARGV[5])
local min_retries = tonumber(ARGV[6])
local ttl = tonumber(ARGV[7])
local spread_us = tonumber(ARGV[8]) or 0
local m = tonumber(ARGV[9]) or 0
local spread_floor = tonumber(ARGV[10]) or 0

local slot = fdiv(now, slot_us)
local latest = tonumber(redis.call('HGET', key, 'ls'))
if latest ~= nil and latest > slot then
  slot = latest
end
local idx = slot - fdiv(slot, n) * n
local spreads = spread_us > 0 and m > 0
local sslot = 0
local sidx = 0
if spreads then
  sslot = fdiv(now, spread_us)
  local slatest = tonumber(redis.call('HGET', key, 'lt'))
  if slatest ~= nil and slatest > sslot then
    sslot = slatest
  end
  sidx = sslot - fdiv(sslot, m) * m
end

local function fmt(v)
  return string.format('%.0f', v)
end

local function bump(prefix, at, i, latest_field)
  local f = prefix .. fmt(i)
  local v = redis.call('HGET', key, f)
  local c = 0
  if v then
    local s, k = string.match(v, '^(%-?%d+):(%d+)$')
    if s ~= nil and tonumber(s) == at then
      c = tonumber(k)
    end
  end
  redis.call('HSET', key, f, fmt(at) .. ':' .. fmt(c + 1), latest_field, fmt(at))
  redis.call('PEXPIRE', key, ttl)
end

if op == 'R' then
  bump('q', slot, idx, 'ls')
  if spreads then
    bump('a', sslot, sidx, 'lt')
  end
  return {1, 0, 0, now}
end

local requests = 0
local retries = 0
local recent_requests = 0
local recent_retries = 0
local all = redis.call('HGETALL', key)
for i = 1, #all, 2 do
  local f = all[i]
  local kind = string.sub(f, 1, 1)
  if kind == 'q' or kind == 'r' or kind == 'a' or kind == 'b' then
    local s, k = string.match(all[i + 1], '^(%-?%d+):(%d+)$')
    s = tonumber(s)
    if s ~= nil then
      if kind == 'q' or kind == 'r' then
        if s > slot - n and s <= slot then
          if kind == 'q' then
            requests = requests + tonumber(k)
          else
            retries = retries + tonumber(k)
          end
        end
      elseif spreads and s > sslot - m and s <= sslot then
        if kind == 'a' then
          recent_requests = recent_requests + tonumber(k)
        else
          recent_retries = recent_retries + tonumber(k)
        end
      end
    end
  end
end

local granted = 0
if op == 'T' and retries < math.max(min_retries, ratio * requests)
    and (not spreads or recent_retries + 1 <= math.max(spread_floor, ratio * recent_requests)) then
  bump('r', slot, idx, 'ls')
  if spreads then
    bump('b', sslot, sidx, 'lt')
  end
  retries = retries + 1
  granted = 1
end
if op == 'V' and redis.call('PTTL', key) == -1 then
  redis.call('PEXPIRE', key, ttl) -- never a key without expiry (R16)
end
return {granted, requests, retries, now}
