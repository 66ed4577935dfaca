-- Sluice idempotency records (SPEC §3.11): one hash per (API key, Idempotency-Key), changed only here,
-- so every operation is one atomic step on the server.
--
-- KEYS[1]  the record
-- ARGV[1]  'B' begin | 'C' complete | 'A' abandon | 'L' lookup
-- ARGV[2]  now in milliseconds since 1970, or '' to read the server's TIME (production)
-- begin:    ARGV[3] method, ARGV[4] path, ARGV[5] new token, ARGV[6] lease ms, ARGV[7] key TTL ms
-- complete: ARGV[3] token, ARGV[4] method, ARGV[5] path, ARGV[6] body sha256, ARGV[7] status,
--           ARGV[8] 'R' replayable | 'N' not replayable, ARGV[9] fields, ARGV[10] body (base64),
--           ARGV[11] reason, ARGV[12] retention ms
-- abandon:  ARGV[3] token
--
-- Hash fields: m method, p path, k token, x logical expiry (ms since 1970); once completed also
-- s status, d body sha256, r kind, h fields, b body, w reason. A record whose x has passed is absent
-- for every operation. Its key TTL (R16) is only garbage collection: a marker's TTL is longer than its
-- lease, so a holder past its lease can still complete while nobody took the key; a completed record's
-- TTL is its retention.
--
-- Replies: begin {'A'} acquired | {'F'} in flight | {'X', method, path} conflict |
--          {'C', sha256, status, kind, fields, body, reason} completed
--          complete {1} recorded | {0} not this claim | {'T', method, path} the claim is for another target
--          abandon {1} | {0}  lookup {} | {'F', method, path} | {'C', method, path, sha256, status, kind,
--          fields, body, reason}

local key = KEYS[1]
local op = ARGV[1]
local now = tonumber(ARGV[2])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function fmt(n)
  return string.format('%.0f', n)
end

-- the record's m, p, k, x, s when it is live, else nil
local function live()
  local r = redis.call('HMGET', key, 'm', 'p', 'k', 'x', 's')
  local x = tonumber(r[4])
  if not r[1] or not x or x <= now then
    return nil
  end
  return r
end

if op == 'B' then
  local r = live()
  if r then
    if r[1] ~= ARGV[3] or r[2] ~= ARGV[4] then
      return { 'X', r[1], r[2] }
    end
    if not r[5] then
      return { 'F' }
    end
    local c = redis.call('HMGET', key, 'd', 's', 'r', 'h', 'b', 'w')
    return { 'C', c[1], c[2], c[3], c[4], c[5], c[6] }
  end
  redis.call('DEL', key)
  redis.call('HSET', key, 'm', ARGV[3], 'p', ARGV[4], 'k', ARGV[5], 'x', fmt(now + tonumber(ARGV[6])))
  redis.call('PEXPIRE', key, ARGV[7])
  return { 'A' }
elseif op == 'C' then
  local r = redis.call('HMGET', key, 'm', 'p', 'k', 's')
  if not r[3] or r[3] ~= ARGV[3] or r[4] then
    return { 0 } -- absent, another claim's, or completed already
  end
  if r[1] ~= ARGV[4] or r[2] ~= ARGV[5] then
    return { 'T', r[1], r[2] }
  end
  local retention = tonumber(ARGV[12])
  redis.call('HSET', key, 'd', ARGV[6], 's', ARGV[7], 'r', ARGV[8], 'h', ARGV[9], 'b', ARGV[10], 'w', ARGV[11],
    'x', fmt(now + retention))
  redis.call('PEXPIRE', key, fmt(retention))
  return { 1 }
elseif op == 'A' then
  local r = redis.call('HMGET', key, 'k', 's')
  if not r[1] or r[1] ~= ARGV[3] or r[2] then
    return { 0 }
  end
  redis.call('DEL', key)
  return { 1 }
elseif op == 'L' then
  local r = live()
  if not r then
    return {}
  end
  if not r[5] then
    return { 'F', r[1], r[2] }
  end
  local c = redis.call('HMGET', key, 'd', 's', 'r', 'h', 'b', 'w')
  return { 'C', r[1], r[2], c[1], c[2], c[3], c[4], c[5], c[6] }
end
return redis.error_reply('unknown operation ' .. tostring(op))
