// SPDX-License-Identifier: MIT
// The Lua scripts FarmStore runs: each moves partitions through their lifecycle atomically,
// fenced by the coordinator's lease (farm_store.hpp says what each call does).
// Keys (all under "zk:"; the scripts touch keys derived from their arguments, so the farm
// needs a standalone Redis or one cluster hash slot, not a sharded cluster):
//   zk:seq:job                        counter (job ids "j<n>"); attempt tokens are random
//                                     (random_token.hpp), made by the coordinator per claim
//   zk:job:<id>                       hash: spec, state, error, n_verified, created_ms ...
//   zk:part:<id>:<i>                  hash: state, attempts, token, worker, worker_key,
//                                     synth_worker, bundle_endpoint, bundle_key, statement,
//                                     error, recorded, proof, public, recorded_fence,
//                                     recorded_at_us
//   zk:jobs (zset by created), zk:active (set), zk:idem:<key> (job id)
//   zk:ended                          zset: final jobs, score = when they ended (ms); the
//                                     retention sweep (kExpireEnded) deletes them from here
//   zk:q:synth, zk:q:prove            zsets, score -priority, member PartRef::member()
//   zk:q:delayed                      zset, score = when the retry may run (ms)
//   zk:leases                         zset, score = when the holder's lease is re-checked (ms)
//   zk:circuit:<id>                   hash: curve, vk (snarkjs JSON), meta
//   zk:wtns:<id>:<i>                  string: a zkey job's partition input (.wtns bytes),
//                                     deleted by the script that makes the job final
//   zk:stage:<nonce>:<i>              string: an input uploaded by submit, expiring unless
//                                     the submit script renames it to zk:wtns:<id>:<i>
#include "farm/farm_store_scripts.hpp"

#include "farm/coordinator_lease.hpp"  // ZK_LUA_FENCE_CHECK

namespace zkmill::farm::lua {

// Shared Lua prologue: decode a member into the job and partition keys.
#define ZK_LUA_REF                                                                 \
  "local m = ARGV[1]\n"                                                            \
  "local seq = tonumber(string.sub(m, 1, 12))\n"                                   \
  "local part = tonumber(string.sub(m, 14))\n"                                     \
  "if not seq or not part then return redis.error_reply('bad member ' .. m) end\n" \
  "local id = 'j' .. seq\n"                                                        \
  "local jk = 'zk:job:' .. id\n"                                                   \
  "local pk = 'zk:part:' .. id .. ':' .. part\n"

// Shared Lua helper: a member's job and partition hash keys (nil for a malformed member).
#define ZK_LUA_MEMBER_KEYS                                                            \
  "local function member_keys(m)\n"                                                   \
  "  local seq, part = tonumber(string.sub(m, 1, 12)), tonumber(string.sub(m, 14))\n" \
  "  if not seq or not part then return nil end\n"                                    \
  "  local id = 'j' .. seq\n"                                                         \
  "  return 'zk:job:' .. id, 'zk:part:' .. id .. ':' .. part\n"                       \
  "end\n"

// Shared Lua helper: why a result or failure may not end the partition's attempt (nil: it may).
// Only the worker the lease names (routing id, and CURVE key when there is one) with the
// attempt's token may; a token alone is not enough.
#define ZK_LUA_HOLDER                                                             \
  "local function refusal(pk, token, worker, wkey)\n"                             \
  "  if redis.call('HGET', pk, 'token') ~= token then return 'stale token' end\n" \
  "  if redis.call('HGET', pk, 'worker') ~= worker or\n"                          \
  "     (redis.call('HGET', pk, 'worker_key') or '') ~= wkey then\n"              \
  "    return 'not from the worker the lease names'\n"                            \
  "  end\n"                                                                       \
  "  return nil\n"                                                                \
  "end\n"

// Shared Lua helper: a final job's inputs are no longer needed (no attempt can start once a
// job is done, failed or cancelled; the proofs and public signals stay in the partitions).
#define ZK_LUA_DROP_INPUTS                                                              \
  "local function drop_inputs(job_id)\n"                                                \
  "  local jkey = 'zk:job:' .. job_id\n"                                                \
  "  if redis.call('HGET', jkey, 'kind') ~= 'zkey' then return end\n"                   \
  "  local count = tonumber(redis.call('HGET', jkey, 'partitions'))\n"                  \
  "  for i = 0, count - 1 do redis.call('DEL', 'zk:wtns:' .. job_id .. ':' .. i) end\n" \
  "end\n"

const char* const kSubmit = R"lua(
local circuit, curve, n, seed, prio, idem, deadline, now = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5]), ARGV[6], ARGV[7], ARGV[8]
local kind, stage, params = ARGV[9], ARGV[10], ARGV[11]
local function drop_stage()
  if stage ~= '' then for i = 0, n - 1 do redis.call('DEL', 'zk:stage:' .. stage .. ':' .. i) end end
end
if idem ~= '' then
  local existing = redis.call('GET', 'zk:idem:' .. idem)
  if existing then
    drop_stage()
    -- Same key, other parameters: refused (a retry must ask for the same proofs). Jobs from
    -- before the params field was recorded match anything.
    local had = redis.call('HGET', 'zk:job:' .. existing, 'params')
    if params ~= '' and had and had ~= '' and had ~= params then return {existing, 2, had} end
    return {existing, 0}
  end
end
if stage ~= '' then
  for i = 0, n - 1 do
    if redis.call('EXISTS', 'zk:stage:' .. stage .. ':' .. i) == 0 then
      return redis.error_reply('staged input ' .. i .. ' is missing (expired?); submit again')
    end
  end
end
local seq = redis.call('INCR', 'zk:seq:job')
local id = 'j' .. seq
local pfx = string.format('%012d', seq)
redis.call('HSET', 'zk:job:' .. id, 'id', id, 'circuit', circuit, 'curve', curve, 'partitions', n, 'seed', seed,
  'priority', prio, 'idempotency_key', idem, 'deadline_ms', deadline, 'state', 'queued', 'created_ms', now,
  'updated_ms', now, 'n_verified', 0, 'error', '', 'kind', kind, 'params', params)
if stage ~= '' then
  for i = 0, n - 1 do
    local dst = 'zk:wtns:' .. id .. ':' .. i
    redis.call('RENAME', 'zk:stage:' .. stage .. ':' .. i, dst)
    redis.call('PERSIST', dst)  -- RENAME keeps the staging TTL; an accepted input must not expire
  end
end
for i = 0, n - 1 do
  redis.call('HSET', 'zk:part:' .. id .. ':' .. i, 'state', 'queued', 'attempts', 0, 'token', '', 'recorded', 0,
    'worker', '', 'worker_key', '', 'synth_worker', '', 'statement', '', 'error', '')
  redis.call('ZADD', 'zk:q:synth', -prio, pfx .. ':' .. string.format('%08d', i))
end
redis.call('ZADD', 'zk:jobs', now, id)
redis.call('PUBLISH', 'zk:wake', id)  -- the coordinator dispatches at once, not on its next idle turn
redis.call('SADD', 'zk:active', id)
if idem ~= '' then redis.call('SET', 'zk:idem:' .. idem, id) end
return {id, 1}
)lua";

// Leases the best entry of a queue that the worker can serve, in one round trip: among the
// first `window` members (best first), those of a job whose circuit is one of the worker's;
// for the prove queue one whose bundle this worker made comes first (no transfer). Entries
// found stale on the way (job final, partition no longer waiting) are removed from the queue.
// ARGV: queue, worker, now, lease, token, worker key, window, then the worker's circuits; the fence.
// Returns {1, token, member, job hash, partition hash}, or {0, 'empty' | 'none'}.
const char* const kClaim = ZK_LUA_FENCE_CHECK ZK_LUA_MEMBER_KEYS R"lua(
local q, worker, now, lease, token, wkey, window = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6], tonumber(ARGV[7])
local serves = {}
for i = 8, #ARGV - 1 do serves[ARGV[i]] = true end
local want, next = 'queued', 'synthesizing'
if q == 'prove' then want, next = 'synthesized', 'proving' end
local members = redis.call('ZRANGE', 'zk:q:' .. q, 0, window - 1)
if #members == 0 then return {0, 'empty'} end
local live = {}  -- {member, job key, partition key, synth worker} of the entries this worker serves
for _, m in ipairs(members) do
  local jk, pk = member_keys(m)
  if not jk then
    redis.call('ZREM', 'zk:q:' .. q, m)
  else
    local job = redis.call('HMGET', jk, 'state', 'circuit')
    local js = job[1]
    if (js ~= 'queued' and js ~= 'running') or redis.call('HGET', pk, 'state') ~= want then
      redis.call('ZREM', 'zk:q:' .. q, m)  -- stale: cancelled, failed or done job, or moved on
    elseif serves[job[2]] then
      live[#live + 1] = {m, jk, pk, js}
      if q ~= 'prove' or redis.call('HGET', pk, 'synth_worker') == worker then break end
    end
  end
end
if #live == 0 then return {0, 'none'} end
local pick = live[#live]  -- its own bundle when one was found (the loop stopped there), else ...
if q == 'prove' and redis.call('HGET', pick[3], 'synth_worker') ~= worker then pick = live[1] end  -- ... the best
local m, jk, pk, js = pick[1], pick[2], pick[3], pick[4]
redis.call('ZREM', 'zk:q:' .. q, m)
redis.call('HSET', pk, 'state', next, 'token', token, 'worker', worker, 'worker_key', wkey, 'updated_ms', now)
if js == 'queued' then redis.call('HSET', jk, 'state', 'running', 'updated_ms', now) end
redis.call('ZADD', 'zk:leases', now + lease, m)
return {1, token, m, redis.call('HGETALL', jk), redis.call('HGETALL', pk)}
)lua";

// Records the syntheses a coordinator's loop turn received, in one script: one round trip for
// all of them (atomic, like every script), each checked on its own (state, holder, token), so
// that a refused one changes nothing and the same batch run again (after a lost reply) records
// nothing twice. Telemetry (synth_ms) rides along per item, so a synthesis and its timing are
// one write. ARGV: count, now, lease, then per item: member, token, worker, worker key, bundle
// endpoint, bundle key, statement, k, k name/value pairs; then the fence.
const char* const kSynthDone = ZK_LUA_FENCE_CHECK ZK_LUA_HOLDER ZK_LUA_MEMBER_KEYS R"lua(
local count, now, lease = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local out, a = {}, 4
for n = 1, count do
  local m, token, worker, wkey, endpoint, bkey, statement, k =
    ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6], tonumber(ARGV[a + 7])
  local fields = a + 8
  a = fields + 2 * k
  local jk, pk = member_keys(m)
  local r
  if not jk then
    r = {0, 'bad member ' .. m}
  else
    local ps, js = redis.call('HGET', pk, 'state'), redis.call('HGET', jk, 'state')
    local why = nil
    if ps ~= 'synthesizing' then why = 'partition ' .. tostring(ps)
    else why = refusal(pk, token, worker, wkey) end
    if not why and js ~= 'running' then why = 'job ' .. tostring(js) end
    if why then
      r = {0, why}
    else
      redis.call('HSET', pk, 'state', 'synthesized', 'synth_worker', worker, 'bundle_endpoint', endpoint,
        'bundle_key', bkey, 'statement', statement, 'updated_ms', now)
      for i = fields, a - 1, 2 do redis.call('HSET', pk, ARGV[i], ARGV[i + 1]) end
      redis.call('ZADD', 'zk:q:prove', -tonumber(redis.call('HGET', jk, 'priority')), m)
      redis.call('ZADD', 'zk:leases', now + lease, m)
      r = {1, ''}
    end
  end
  out[n] = r
end
return out
)lua";

// Records a batch of verified proofs (every proof the coordinator's loop turn has a verdict
// for) in one script: one round trip, atomic like every script. Each item is checked on its
// own (state, holder, token) and refused items change nothing, so the same batch run again
// (after a lost reply) records nothing twice. The recorded public
// inputs are the partition's statement (set at synth_done), never the prover's: the
// coordinator verified the proof against exactly that.
// Each recording also keeps the recording coordinator's fencing token and Redis's clock
// (recorded_fence, recorded_at_us), which the lease's tenure history (zk:lease:history) can be
// checked against: only the lease's holder of that moment may have recorded it.
// ARGV: count, now, then per item: member, token, worker, worker key, proof, k, k name/value
// pairs of telemetry; then the fence.
const char* const kProveDone = ZK_LUA_FENCE_CHECK ZK_LUA_HOLDER ZK_LUA_MEMBER_KEYS R"lua(
local count, now = tonumber(ARGV[1]), ARGV[2]
local t = redis.call('TIME')
local at, fence = t[1] .. string.format('%06d', tonumber(t[2])), ARGV[#ARGV]  -- µs, as digits
local out, a = {}, 3
for n = 1, count do
  local m, token, worker, wkey, proof, k = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], tonumber(ARGV[a + 5])
  local fields = a + 6
  a = fields + 2 * k
  local jk, pk = member_keys(m)
  local r
  if not jk then
    r = {0, 'bad member ' .. m}
  else
    local js, ps = redis.call('HGET', jk, 'state'), redis.call('HGET', pk, 'state')
    local why = nil
    if js ~= 'running' then why = 'job ' .. tostring(js)
    elseif ps ~= 'proving' then why = 'partition ' .. tostring(ps)
    else why = refusal(pk, token, worker, wkey) end
    local pub = redis.call('HGET', pk, 'statement')
    if not why and (not pub or pub == '') then why = 'no statement' end
    if why then
      r = {0, why}
    else
      redis.call('HSET', pk, 'state', 'verified', 'proof', proof, 'public', pub, 'updated_ms', now,
        'recorded_fence', fence, 'recorded_at_us', at)
      for i = fields, a - 1, 2 do redis.call('HSET', pk, ARGV[i], ARGV[i + 1]) end
      redis.call('HINCRBY', pk, 'recorded', 1)
      redis.call('ZREM', 'zk:leases', m)
      local nv = redis.call('HINCRBY', jk, 'n_verified', 1)
      r = {1, nv, tonumber(redis.call('HGET', jk, 'partitions')), redis.call('HGET', pk, 'synth_worker'),
        redis.call('HGET', pk, 'bundle_key')}
    end
  end
  out[n] = r
end
return out
)lua";

// A `permanent` failure fails the job at once only while the partition is synthesizing: the
// synth worker checks the witness, so a prove worker that calls a checked witness hopeless is
// itself at fault, and the partition is retried like any failed attempt.
const char* const kFail = ZK_LUA_FENCE_CHECK ZK_LUA_HOLDER ZK_LUA_DROP_INPUTS ZK_LUA_REF R"lua(
local token, worker, wkey, err, now, maxa, backoff, backoff_max = ARGV[2], ARGV[3], ARGV[4], ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local permanent = ARGV[10] == '1'
local ps = redis.call('HGET', pk, 'state')
if ps ~= 'synthesizing' and ps ~= 'synthesized' and ps ~= 'proving' then return {0, 'partition ' .. tostring(ps)} end
if token ~= '' then
  local why = refusal(pk, token, worker, wkey)
  if why then return {0, why} end
else
  if redis.call('HGET', pk, 'worker') ~= worker then return {0, 'not held by ' .. worker} end
end
local downgraded = 0
if permanent then
  if ps == 'synthesizing' then maxa = 1 else downgraded = 1 end
end
redis.call('ZREM', 'zk:leases', m)
redis.call('ZREM', 'zk:q:prove', m)
local js = redis.call('HGET', jk, 'state')
if js ~= 'running' and js ~= 'queued' then
  redis.call('HSET', pk, 'state', js == 'cancelled' and 'cancelled' or ps, 'worker', '')
  return {0, 'job ' .. tostring(js)}
end
if ARGV[11] == '1' then
  -- Handed back unstarted (a draining worker's lookahead queue): queued again at once, no
  -- attempt counted, nothing else of the partition changed but its holder and bundle.
  redis.call('HSET', pk, 'state', 'queued', 'worker', '', 'worker_key', '', 'synth_worker', '', 'bundle_endpoint', '',
    'bundle_key', '', 'statement', '', 'updated_ms', now)
  redis.call('ZADD', 'zk:q:synth', -tonumber(redis.call('HGET', jk, 'priority')), m)
  return {1, tonumber(redis.call('HGET', pk, 'attempts') or '0'), 0, 0}
end
local attempts = redis.call('HINCRBY', pk, 'attempts', 1)
redis.call('HSET', pk, 'error', err, 'worker', '', 'worker_key', '', 'synth_worker', '', 'bundle_endpoint', '',
  'bundle_key', '', 'statement', '', 'updated_ms', now)
if attempts >= maxa then
  redis.call('HSET', pk, 'state', 'failed')
  redis.call('HSET', jk, 'state', 'failed', 'error', 'partition ' .. part .. ' failed after ' .. attempts ..
    ' attempts: ' .. err, 'updated_ms', now)
  redis.call('SREM', 'zk:active', id)
  redis.call('ZADD', 'zk:ended', now, id)
  drop_inputs(id)
  return {2, attempts, 0, downgraded}
end
local delay = math.min(backoff * math.pow(2, attempts - 1), backoff_max)
redis.call('HSET', pk, 'state', 'queued')
redis.call('ZADD', 'zk:q:delayed', now + delay, m)
return {1, attempts, delay, downgraded}
)lua";

const char* const kPromote = ZK_LUA_FENCE_CHECK R"lua(
local now = ARGV[1]
local due = redis.call('ZRANGEBYSCORE', 'zk:q:delayed', '-inf', now, 'LIMIT', 0, 256)
for _, m in ipairs(due) do
  redis.call('ZREM', 'zk:q:delayed', m)
  local id = 'j' .. tonumber(string.sub(m, 1, 12))
  local prio = redis.call('HGET', 'zk:job:' .. id, 'priority')
  if prio then redis.call('ZADD', 'zk:q:synth', -tonumber(prio), m) end
end
return #due
)lua";

const char* const kCancel = ZK_LUA_DROP_INPUTS R"lua(
local id, now = ARGV[1], ARGV[2]
local jk = 'zk:job:' .. id
local js = redis.call('HGET', jk, 'state')
if not js then return '' end
if js ~= 'queued' and js ~= 'running' then return js end
redis.call('HSET', jk, 'state', 'cancelled', 'updated_ms', now)
redis.call('SREM', 'zk:active', id)
redis.call('ZADD', 'zk:ended', now, id)
local n = tonumber(redis.call('HGET', jk, 'partitions'))
local pfx = string.format('%012d', tonumber(string.sub(id, 2)))
for i = 0, n - 1 do
  local m = pfx .. ':' .. string.format('%08d', i)
  local pk = 'zk:part:' .. id .. ':' .. i
  if redis.call('HGET', pk, 'state') ~= 'verified' then redis.call('HSET', pk, 'state', 'cancelled') end
  redis.call('ZREM', 'zk:q:synth', m)
  redis.call('ZREM', 'zk:q:prove', m)
  redis.call('ZREM', 'zk:q:delayed', m)
  redis.call('ZREM', 'zk:leases', m)
end
drop_inputs(id)
return 'cancelled'
)lua";

const char* const kFinish = ZK_LUA_FENCE_CHECK ZK_LUA_DROP_INPUTS R"lua(
local id, state, err, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local jk = 'zk:job:' .. id
local js = redis.call('HGET', jk, 'state')
if js ~= 'running' and js ~= 'queued' then return 0 end
redis.call('HSET', jk, 'state', state, 'error', err, 'updated_ms', now)
redis.call('SREM', 'zk:active', id)
redis.call('ZADD', 'zk:ended', now, id)
if state == 'done' then
  local n = tonumber(redis.call('HGET', jk, 'partitions'))
  for i = 0, n - 1 do redis.call('HSET', 'zk:part:' .. id .. ':' .. i, 'state', 'done') end
end
drop_inputs(id)
return 1
)lua";

// Lease bookkeeping and telemetry: small writes, fenced like the rest.
const char* const kRenewLease = ZK_LUA_FENCE_CHECK R"lua(
return redis.call('ZADD', 'zk:leases', 'XX', ARGV[2], ARGV[1])
)lua";
const char* const kDropLease = ZK_LUA_FENCE_CHECK R"lua(
return redis.call('ZREM', 'zk:leases', ARGV[1])
)lua";
// Telemetry for a partition that still exists: a late report for a job the retention sweep
// has deleted must not leave a stray partition hash behind.
const char* const kSetFields = ZK_LUA_FENCE_CHECK ZK_LUA_REF R"lua(
if redis.call('EXISTS', pk) == 0 then return 0 end
for i = 2, #ARGV - 2, 2 do redis.call('HSET', pk, ARGV[i], ARGV[i + 1]) end
return 1
)lua";

// Result retention: deletes the jobs that ended (done, failed, cancelled) at or before a cutoff,
// oldest first, each with everything it left in Redis: its hash, its partitions' hashes (proofs
// and public signals) and inputs, its idempotency key (when that still names it) and its
// entries in zk:jobs, the queues and the leases. Stops after the job that brings the partitions
// deleted to `budget` (so one call stays short: about five commands a partition). A job in
// zk:ended that is not final is only taken off the index. Every script that could write to a
// job's keys checks the job's or the partition's state first, and a deleted key has none, so a
// late result, failure or telemetry for a deleted job is refused and recreates nothing.
// ARGV: cutoff (ms), budget (partitions); the fence. Returns the ids deleted.
const char* const kExpireEnded = ZK_LUA_FENCE_CHECK R"lua(
local cutoff, budget = ARGV[1], tonumber(ARGV[2])
local gone, parts = {}, 0
while parts < budget do
  local next = redis.call('ZRANGEBYSCORE', 'zk:ended', '-inf', cutoff, 'LIMIT', 0, 1)
  if #next == 0 then break end
  local id = next[1]
  redis.call('ZREM', 'zk:ended', id)
  local jk = 'zk:job:' .. id
  local job = redis.call('HMGET', jk, 'state', 'partitions', 'idempotency_key')
  local seq = tonumber(string.sub(id, 2))
  if job[1] ~= 'queued' and job[1] ~= 'running' and seq then
    local n = tonumber(job[2]) or 0
    local pfx = string.format('%012d', seq)
    for i = 0, n - 1 do
      local m = pfx .. ':' .. string.format('%08d', i)
      redis.call('DEL', 'zk:part:' .. id .. ':' .. i, 'zk:wtns:' .. id .. ':' .. i)
      redis.call('ZREM', 'zk:q:synth', m)
      redis.call('ZREM', 'zk:q:prove', m)
      redis.call('ZREM', 'zk:q:delayed', m)
      redis.call('ZREM', 'zk:leases', m)
    end
    local idem = job[3]
    if idem and idem ~= '' and redis.call('GET', 'zk:idem:' .. idem) == id then redis.call('DEL', 'zk:idem:' .. idem) end
    redis.call('DEL', jk)
    redis.call('ZREM', 'zk:jobs', id)
    redis.call('SREM', 'zk:active', id)
    gone[#gone + 1] = id
    parts = parts + math.max(n, 1)
  end
end
return gone
)lua";

// Indexes final jobs that ended before zk:ended existed (a farm upgraded in place): those of
// zk:jobs[start, start + count) that are final and not yet in the index are added with their
// updated_ms (the scripts that make a job final set it last). ARGV: start, count; the fence.
// Returns {members scanned, jobs added}.
const char* const kIndexEnded = ZK_LUA_FENCE_CHECK R"lua(
local start, count = tonumber(ARGV[1]), tonumber(ARGV[2])
local ids = redis.call('ZRANGE', 'zk:jobs', start, start + count - 1)
local added = 0
for _, id in ipairs(ids) do
  local j = redis.call('HMGET', 'zk:job:' .. id, 'state', 'updated_ms')
  if j[1] and j[1] ~= 'queued' and j[1] ~= 'running' and not redis.call('ZSCORE', 'zk:ended', id) then
    redis.call('ZADD', 'zk:ended', tonumber(j[2]) or 0, id)
    added = added + 1
  end
end
return {#ids, added}
)lua";

// The prologues are this file's alone (a unity build compiles the next file in the same unit).
#undef ZK_LUA_REF
#undef ZK_LUA_MEMBER_KEYS
#undef ZK_LUA_HOLDER
#undef ZK_LUA_DROP_INPUTS

}  // namespace zkmill::farm::lua
