-- Sluice: the SDK's pacer bucket shared by N processes (SPEC §4.6, §4.8). One call = one operation,
-- atomic. Integers only: micro-tokens (µtok) and microseconds (µs); every stored value stays below 2^53.
--
-- KEYS[1]  the bucket hash: tok (µtok at ts), ts (µs, last refill; never moves back), pu (µs, paused
--          until), rate (µtok per second), cap (µtok). An absent key, or absent tok, reads as full.
-- ARGV[1]  op: A acquire, C clamp, P drain and pause, V view (no write)
-- ARGV[2]  now in µs, or '' for the server's TIME (the one clock of every process)
-- ARGV[3]  the minimum TTL in ms
-- ARGV[4]  the caller's rate in µtok/s, 0 when it knows none (then the stored one is used)
-- ARGV[5]  the caller's capacity in µtok, 0 when it knows none
-- ARGV[6]  A: the cost (µtok); C: the most tokens to keep (µtok); P: the pause (µs, 0 = none)
-- Reply:   {wait µs (0 = granted, -1 = cost above capacity), tokens µtok (-1 = no limit known),
--           pause left µs, rate, capacity, now µs}

local M = 1000000

-- floor(a / b) for integers a >= 0, b > 0: the double division corrected by one multiplication
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
  now = tonumber(t[1]) * M + tonumber(t[2])
else
  now = tonumber(ARGV[2])
end
local min_ttl = tonumber(ARGV[3])
local rate = tonumber(ARGV[4])
local cap = tonumber(ARGV[5])
local x = tonumber(ARGV[6])

local h = redis.call('HMGET', key, 'tok', 'ts', 'pu', 'rate', 'cap')
local tok = tonumber(h[1])
local ts = tonumber(h[2])
local pu = tonumber(h[3]) or 0
if rate <= 0 or cap <= 0 then
  -- this process has learned no limit yet: follow the one another process stored
  rate = tonumber(h[4]) or 0
  cap = tonumber(h[5]) or 0
end

local function fmt(v)
  return string.format('%.0f', v)
end

-- µs to earn m µtok at rate: ceil(m * M / rate), split so no product passes 2^53 below 9,007 tokens/s
local function fill_time(m)
  if m <= 0 then
    return 0
  end
  local q = fdiv(m, rate)
  local r = m - q * rate
  local w = q * M
  if r > 0 then
    local c = fdiv(r * M, rate)
    if c * rate < r * M then
      c = c + 1
    end
    w = w + c
  end
  return w
end

-- µtok earned in e µs (e shorter than the time to fill): floor(e * rate / M), split the same way
local function earned(e)
  local a = fdiv(e, M)
  local b = e - a * M
  local r1 = fdiv(rate, M)
  local r0 = rate - r1 * M
  return a * rate + b * r1 + fdiv(b * r0, M)
end

if rate <= 0 or cap <= 0 then
  -- no limit known anywhere: only a pause (a 429's Retry-After) holds calls back
  local left = 0
  if pu > now then
    left = pu - now
  end
  if op == 'P' and x > 0 and now + x > pu then
    pu = now + x
    left = x
    redis.call('HSET', key, 'pu', fmt(pu))
    redis.call('PEXPIRE', key, math.max(min_ttl, fdiv(x, 1000) + 2))
  end
  local wait = 0
  if op == 'A' then
    wait = left
  end
  return {wait, -1, left, 0, 0, now}
end

if tok == nil or ts == nil then
  tok = cap
  ts = now
end
if tok > cap then
  tok = cap -- the capacity was lowered
end
if now > ts then
  local missing = cap - tok
  if missing > 0 then
    local e = now - ts
    if e >= fill_time(missing) then
      tok = cap
    else
      tok = math.min(cap, tok + earned(e))
    end
  end
  ts = now
end
-- a stale or paused reading (now <= ts) refills nothing and never moves ts back

local left = 0
if pu > now then
  left = pu - now
end
local wait = 0
if op == 'A' then
  if x > cap then
    wait = -1
  elseif left > 0 then
    wait = left + fill_time(x - tok)
  elseif tok >= x then
    tok = tok - x
  else
    wait = math.max(1, fill_time(x - tok))
  end
elseif op == 'C' then
  if x < tok then
    tok = math.max(0, x)
  end
elseif op == 'P' then
  tok = 0
  if x > 0 and now + x > pu then
    pu = now + x
  end
  if pu > ts then
    ts = pu -- nothing refills during the pause
  end
  if pu > now then
    left = pu - now
  end
end

if op == 'V' then
  if redis.call('PTTL', key) == -1 then
    redis.call('PEXPIRE', key, min_ttl) -- never a key without expiry (R16)
  end
else
  redis.call('HSET', key, 'tok', fmt(tok), 'ts', fmt(ts), 'pu', fmt(pu), 'rate', fmt(rate), 'cap', fmt(cap))
  -- kept until it is full again and unpaused, and at least min_ttl (the learned rate outlives a burst)
  local full_in = math.max(ts, now) - now + fill_time(cap - tok)
  redis.call('PEXPIRE', key, math.max(min_ttl, fdiv(full_in, 1000) + 2))
end
return {wait, tok, left, rate, cap, now}
